// A Rust bot: reads each turn of the referee protocol and answers PASS (1.2 draft: the default pick).
use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    while let Some(Ok(_me)) = lines.next() {
        lines.next();
        let counts: Vec<usize> = lines.next().unwrap().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
        for _ in 0..counts[1] { lines.next(); }
        let cards: usize = lines.next().unwrap().unwrap().trim().parse().unwrap();
        for _ in 0..cards { lines.next(); }
        println!("PASS");
        io::stdout().flush().unwrap();
    }
}
