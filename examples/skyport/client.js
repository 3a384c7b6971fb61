#!/usr/bin/env node
// A Skyport AI client (protocol rev 1) in Node.js, written from the protocol's and the game's text alone
// (the protocol's description and the game's rules as the 2013 SDK gave them), with no dependency: it would play against the 2013 server as
// it plays against `locm serve`.
//
//   node examples/skyport/client.js HOST PORT [NAME]
//   locm serve --game skyport --map duel-2p --seat hunter --seat "node examples/skyport/client.js {host} {port}"
//
// It takes the laser and the mortar. On its turn it plans up to three actions: fire the laser along a line
// that reaches an enemy, else the mortar at an enemy two tiles away, else walk one tile toward the nearest
// enemy (and look again from there); with nobody to walk to, it mines when it stands on a resource.

"use strict";
const net = require("net");

const [host = "127.0.0.1", port = "54321", name = "nodebot"] = process.argv.slice(2);

// The protocol, its map object: tile 0,0 on top, 1,0 below it to the left, 0,1 below it to the right, 1,1 below it.
const DIRECTIONS = {
  "up": [-1, -1], "down": [1, 1], "left-up": [0, -1], "left-down": [1, 0],
  "right-up": [-1, 0], "right-down": [0, 1],
};
const WALKABLE = new Set(["G", "E", "R", "C"]); // the game's rules: grass and the three resources
const LASER_RANGE = [5, 6, 7];
const MORTAR_RANGE = [2, 3, 4];

let board = null; // board[j][k]: the tile letter
const sock = net.connect(Number(port), host, () => send({ message: "connect", revision: 1, name }));
sock.setEncoding("utf8");
sock.setNoDelay(true); // a turn's lines go out at once, not held until the server acknowledges the first

function send(obj) {
  sock.write(JSON.stringify(obj) + "\n");
}

let pending = "";
sock.on("data", (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, end).replace(/\r$/, "");
    pending = pending.slice(end + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
sock.on("error", () => process.exit(0));
sock.on("end", () => process.exit(0));

function handle(msg) {
  if (msg.error) {
    console.error(`server says: ${msg.error}`);
  } else if (msg.message === "gamestate") {
    board = msg.map.data;
    if (msg.turn === 0) {
      send({ message: "loadout", "primary-weapon": "laser", "secondary-weapon": "mortar" });
    } else if (msg.players[0].name === name) {
      const actions = plan(msg.players);
      for (const action of actions) send(Object.assign({ message: "action" }, action));
      // Not in the 2013 protocol: `locm serve` (fast timing) ends the turn on {"message":"endturn"} instead of
      // waiting out the think time; the 2013 server answers it with an error, which is only printed.
      if (actions.length < 3) send({ message: "endturn" });
    }
  }
}

function parsePosition(text) {
  const [j, k] = text.split(",").map((x) => parseInt(x, 10));
  return [j, k];
}

function tile(j, k) {
  return j >= 0 && k >= 0 && j < board.length && k < board[j].length ? board[j][k] : "";
}

function distance(dj, dk) {
  // steps on the hex grid: up/down change both coordinates at once
  return Math.sign(dj) === Math.sign(dk) ? Math.max(Math.abs(dj), Math.abs(dk)) : Math.abs(dj) + Math.abs(dk);
}

function level(me, weapon) {
  for (const key of ["primary-weapon", "secondary-weapon"]) if (me[key].name === weapon) return me[key].level;
  return 0;
}

function plan(players) {
  const me = players[0];
  let [j, k] = parsePosition(me.position);
  const others = players.slice(1).filter((p) => p.position !== undefined);
  const taken = new Set(others.map((p) => p.position.replace(/\s/g, "")));
  // the game: a robot on a spawn tile cannot be attacked; the protocol: one with health 0 is not alive
  const targets = others.filter((p) => p.health > 0 && tile(...parsePosition(p.position)) !== "S")
    .map((p) => parsePosition(p.position));
  const actions = [];
  while (actions.length < 3) {
    const onSpawn = tile(j, k) === "S"; // no attack from a spawn tile
    const laser = onSpawn ? null : laserLine(j, k, targets, LASER_RANGE[level(me, "laser") - 1]);
    if (laser) {
      actions.push({ type: "laser", direction: laser });
      break; // an offensive action ends the turn
    }
    const shell = onSpawn ? null : mortarTarget(j, k, targets, MORTAR_RANGE[level(me, "mortar") - 1]);
    if (shell) {
      actions.push({ type: "mortar", coordinates: `${shell[0]},${shell[1]}` });
      break;
    }
    const step = firstStep(j, k, targets, taken);
    if (step) {
      actions.push({ type: "move", direction: step });
      j += DIRECTIONS[step][0];
      k += DIRECTIONS[step][1];
    } else if ("ERC".includes(tile(j, k))) {
      actions.push({ type: "mine" });
    } else {
      break;
    }
  }
  return actions;
}

function laserLine(j, k, targets, range) {
  for (const [direction, [dj, dk]] of Object.entries(DIRECTIONS)) {
    let [a, b] = [j, k];
    for (let i = 0; i < range; i++) {
      a += dj;
      b += dk;
      const t = tile(a, b);
      if (t === "" || t === "O") break; // the game: the laser flies over gaps, not through rocks
      if (targets.some(([x, y]) => x === a && y === b)) return direction;
    }
  }
  return null;
}

function mortarTarget(j, k, targets, range) {
  for (const [a, b] of targets) {
    const d = distance(a - j, b - k);
    if (d >= 2 && d <= range) return [a - j, b - k]; // at least 2 away: its area damage would hit us too
  }
  return null;
}

function firstStep(j, k, targets, taken) {
  // breadth-first over walkable, free tiles; stop next to a target
  const key = (a, b) => `${a},${b}`;
  const next = (a, b) => Object.entries(DIRECTIONS).map(([d, [dj, dk]]) => [d, a + dj, b + dk]);
  const goal = new Set();
  for (const [a, b] of targets) for (const [, x, y] of next(a, b)) goal.add(key(x, y));
  const seen = new Map([[key(j, k), null]]);
  let frontier = [[j, k, null]];
  while (frontier.length) {
    const after = [];
    for (const [a, b, first] of frontier) {
      for (const [d, x, y] of next(a, b)) {
        const kx = key(x, y);
        if (seen.has(kx) || !WALKABLE.has(tile(x, y)) || taken.has(kx)) continue;
        seen.set(kx, first || d);
        if (goal.has(kx)) return first || d;
        after.push([x, y, first || d]);
      }
    }
    frontier = after;
  }
  return null;
}
