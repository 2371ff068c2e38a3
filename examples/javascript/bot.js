#!/usr/bin/env node
// A starter Eights Ladder bot (bot protocol v1, docs/BOT_PROTOCOL.md) in JavaScript, Node's standard library only.
//
//   node bot.js --port 8765 --secret YOUR_SECRET [--host 127.0.0.1] [--name MyJsBot] [--version 1.1]
//
// --version is the version the ping reply reports (default "1.0"): the service records it with each match and
// trial, so give a new one when you change the bot.
//
// The secret can also come from BOT_SECRET. It checks every request's signature (HMAC-SHA256 of
// "{timestamp}.{raw body}", compared in constant time; timestamps more than 300 s from this machine's clock are
// refused) and answers 401 before doing anything else; it answers `ping` with its name and `turn` with one of the
// turn's legal actions (chooseAction: change it to make the bot stronger). --port 0 takes a free port; the first
// line printed says where it listens.
"use strict";

const crypto = require("node:crypto");
const http = require("node:http");

const MAX_AGE_S = 300;            // the protocol's replay window
const MAX_BODY_BYTES = 1 << 20;   // the service's requests are far smaller

/** True when `signature` is "sha256=" + hex HMAC-SHA256 of `${timestamp}.${body}` keyed with `secret`, and the
 * timestamp (ASCII digits, unix seconds) is within MAX_AGE_S of now. `body` is the raw body Buffer, as received. */
function signatureOk(secret, body, timestamp, signature) {
  if (typeof timestamp !== "string" || typeof signature !== "string" || !/^[0-9]{1,12}$/.test(timestamp)) {
    return false;
  }
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_AGE_S) {
    return false;
  }
  const mac = crypto.createHmac("sha256", Buffer.from(secret, "utf8"));
  mac.update(Buffer.from(timestamp + ".", "utf8"));
  mac.update(body);
  const expected = Buffer.from("sha256=" + mac.digest("hex"), "utf8");
  const given = Buffer.from(signature, "utf8");
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** One of `legal` (the turn's legal_actions, never empty), returned exactly as listed: a declaration or an
 * announcement when one is due, else a play (an ordinary card before an eight; an eight names the suit held most),
 * else draw, else whatever is legal (pass). */
function chooseAction(view, legal) {
  const due = legal.find((a) => a.type === "declare" || a.type === "announce");
  if (due) return due;
  const plays = legal.filter((a) => a.type === "play");
  const ordinary = plays.find((a) => a.card[0] !== "8");
  if (ordinary) return ordinary;
  if (plays.length > 0) {
    const held = {};
    for (const card of view.hand || []) if (card[0] !== "8") held[card[1]] = (held[card[1]] || 0) + 1;
    const best = (a) => held[a.suit] || 0;
    return plays.reduce((a, b) => (best(b) > best(a) ? b : a));
  }
  return legal.find((a) => a.type === "draw") || legal[0];
}

function reply(res, status, payload) {
  const data = Buffer.from(JSON.stringify(payload), "utf8");
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": data.length });
  res.end(data);
}

function makeServer(secret, name, version = "1.0") {
  return http.createServer((req, res) => {
    if (req.method !== "POST") return reply(res, 405, { error: "POST only" });
    const chunks = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        reply(res, 413, { error: "body too large" });
        req.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    req.on("end", () => {
      if (refused) return;
      const body = Buffer.concat(chunks);  // the raw bytes: sign and verify exactly these
      if (!signatureOk(secret, body, req.headers["x-eights-timestamp"], req.headers["x-eights-signature"])) {
        return reply(res, 401, { error: "bad signature" });
      }
      let request;
      try {
        request = JSON.parse(body.toString("utf8"));
      } catch (err) {
        return reply(res, 400, { error: "the body is not JSON" });
      }
      const kind = request && request.type;
      if (kind === "ping") return reply(res, 200, { name, author: "Eights Ladder starter kits", version });
      if (kind === "turn") return reply(res, 200, { action: chooseAction(request.view || {}, request.legal_actions) });
      if (kind === "match_end") return reply(res, 200, {});
      return reply(res, 400, { error: `unknown request type ${JSON.stringify(kind)}` });
    });
  });
}

function parseArgs(argv) {
  const args = { host: "127.0.0.1", port: 8765, secret: process.env.BOT_SECRET || "", name: "StarterJs", version: "1.0" };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in args) || i + 1 >= argv.length) {
      console.error(`usage: node bot.js --port 8765 --secret S [--host 127.0.0.1] [--name NAME] [--version V] (not ${argv[i]})`);
      process.exit(2);
    }
    args[key] = argv[i + 1];
  }
  args.port = Number(args.port);
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    console.error("--port must be from 0 to 65535");
    process.exit(2);
  }
  if (!args.secret) {
    console.error("give the signing secret with --secret or BOT_SECRET");
    process.exit(2);
  }
  return args;
}

if (require.main === module) {
  const args = parseArgs(process.argv.slice(2));
  const server = makeServer(args.secret, args.name, args.version);
  server.keepAliveTimeout = 60000;  // the service reuses one connection
  server.listen(args.port, args.host, () => {
    const { port } = server.address();
    const host = args.host.includes(":") ? `[${args.host}]` : args.host;
    console.log(`${args.name} listening on http://${host}:${port}/`);
  });
}

module.exports = { signatureOk, chooseAction, makeServer };
