// A Skyport client as the 2013 C# SDK's connect: to the name "localhost" on the official port 54321, by
// default. It chooses its loadout and ends each of its turns without acting: enough to join and play a game.
using System;
using System.IO;
using System.Net.Sockets;
using System.Text.RegularExpressions;

class SkyportClient {
    static void Main(string[] args) {
        string host = args.Length > 0 ? args[0] : "localhost";
        int port = args.Length > 1 ? int.Parse(args[1]) : 54321;
        string name = args.Length > 2 ? args[2] : "csharpbot";
        using (var client = new TcpClient(host, port)) {
            client.NoDelay = true;
            var stream = client.GetStream();
            var reader = new StreamReader(stream);
            var writer = new StreamWriter(stream);
            writer.AutoFlush = true;
            writer.Write("{\"message\":\"connect\",\"revision\":1,\"name\":\"" + name + "\"}\n");
            string line;
            while ((line = reader.ReadLine()) != null) {
                if (!line.Contains("\"gamestate\"")) continue;
                var turn = Regex.Match(line, "\"turn\"\\s*:\\s*(\\d+)");
                var first = Regex.Match(line, "\"players\"\\s*:\\s*\\[\\s*\\{[^}]*?\"name\"\\s*:\\s*\"([^\"]*)\"");
                if (turn.Success && turn.Groups[1].Value == "0") {
                    writer.Write("{\"message\":\"loadout\",\"primary-weapon\":\"laser\",\"secondary-weapon\":\"mortar\"}\n");
                } else if (first.Success && first.Groups[1].Value == name) {
                    writer.Write("{\"message\":\"endturn\"}\n");
                }
            }
        }
    }
}
