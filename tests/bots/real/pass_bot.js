// A Node.js bot: reads each turn of the referee protocol and answers PASS (1.2 draft: the default pick).
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
let want = 3, stage = 0, lines = [];
rl.on("line", (line) => {
  lines.push(line);
  if (stage === 0 && lines.length === 3) { want = 3 + Number(lines[2].trim().split(" ")[1]) + 1; stage = 1; }
  if (stage === 1 && lines.length === want) { want += Number(lines[want - 1].trim()); stage = 2; }
  if (stage === 2 && lines.length === want) { process.stdout.write("PASS\n"); lines = []; want = 3; stage = 0; }
});
