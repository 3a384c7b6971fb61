// A Java bot: reads each turn of the referee protocol and answers PASS (1.2 draft: the default pick).
import java.io.BufferedReader;
import java.io.InputStreamReader;

class Player {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String me;
        while ((me = in.readLine()) != null) {
            in.readLine();
            String[] counts = in.readLine().trim().split(" ");
            for (int i = 0; i < Integer.parseInt(counts[1]); i++) in.readLine();
            int cards = Integer.parseInt(in.readLine().trim());
            for (int i = 0; i < cards; i++) in.readLine();
            System.out.println("PASS");
            System.out.flush();
        }
    }
}
