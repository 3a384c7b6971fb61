// A C# bot (Mono or .NET): reads each turn of the referee protocol and answers PASS (1.2 draft: the default pick).
using System;

class PassBot {
    static void Main() {
        string me;
        while ((me = Console.ReadLine()) != null) {
            Console.ReadLine();
            string[] counts = Console.ReadLine().Trim().Split(' ');
            for (int i = 0; i < int.Parse(counts[1]); i++) Console.ReadLine();
            int cards = int.Parse(Console.ReadLine().Trim());
            for (int i = 0; i < cards; i++) Console.ReadLine();
            Console.WriteLine("PASS");
            Console.Out.Flush();
        }
    }
}
