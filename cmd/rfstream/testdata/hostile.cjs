// A hostile client of an `rfstream serve` pipeline, written against nats.js's documented API (not rfstream's code):
// node hostile.cjs PORT ATTACK [ARG]. It prints "ready" once connected and attacks on a line of input. Each attack sends its messages as fast as nats.js takes them, then waits for
// what the pipeline answers its own streams (each refused stream's end-of-stream result, each image's reply), and
// prints one JSON line: what it sent, what came back, and the first error text of each kind it heard.
const { connect, headers, nkeyAuthenticator } = require("@nats-io/transport-node");
const fs = require("node:fs");

const [port, attack, arg] = process.argv.slice(2);
const P = "rfs.v1.rfs.";

function hdr(fields) {
  const h = headers();
  for (const [k, v] of Object.entries(fields)) h.set(k, String(v));
  return h;
}

// endings subscribes to the results of the streams whose names start with prefix and resolves once each has had its end-of-stream result,
// keeping the error texts heard.
function endings(nc, prefix, n, timeoutMs) {
  const errors = {};
  const byStream = {}; // each stream's error texts, so that a test can ask what every one of them heard
  let ended = 0;
  const sub = nc.subscribe(P + "result.*");
  const done = (async () => {
    for await (const m of sub) {
      if (!m.subject.startsWith(P + "result." + prefix)) continue;
      const r = m.json();
      if (r.error) {
        errors[r.error.replace(/[0-9]+/g, "N")] = r.error;
        const stream = m.subject.slice((P + "result.").length);
        (byStream[stream] = byStream[stream] || []).push(r.error);
      }
      if (r.eos && ++ended === n) break;
    }
  })();
  const timer = new Promise((resolve) => setTimeout(resolve, timeoutMs));
  return Promise.race([done, timer]).then(() => {
    sub.unsubscribe();
    return { ended, errors: Object.values(errors), streamErrors: byStream };
  });
}

const attacks = {
  // Streams whose messages name a rate with a huge resampling filter (767998 Hz), ten 1.6 KB messages each.
  async rate(nc) {
    const streams = Number(arg || 10);
    const heard = endings(nc, "rate", streams, 20000);
    await nc.flush();
    for (let s = 0; s < streams; s++) {
      for (let i = 0; i < 10; i++) {
        const h = { "Rfs-Seq": i, "Rfs-Rate": 767998 };
        if (i === 9) h["Rfs-Eos"] = 1;
        nc.publish(P + "pcm.rate" + s, new Uint8Array(1600), { headers: hdr(h) });
      }
    }
    return { sent: streams * 10, ...(await heard) };
  },
  // Eight streams that withhold their first message and send COUNT more of SIZE bytes each (ARG: SIZE:COUNT), then
  // their end.
  async withhold(nc) {
    const [size, count] = arg.split(":").map(Number);
    const streams = 8;
    const heard = endings(nc, "withhold", streams, 30000);
    await nc.flush();
    const payload = new Uint8Array(size);
    for (let s = 0; s < streams; s++) {
      for (let i = 1; i <= count + 1; i++) {
        const h = { "Rfs-Seq": i, "Rfs-Rate": 8000 };
        if (i === count + 1) h["Rfs-Eos"] = 1;
        nc.publish(P + "pcm.withhold" + s, i === count + 1 ? new Uint8Array(0) : payload, { headers: hdr(h) });
      }
      await nc.flush(); // nats.js buffers without bound: a flush per stream keeps its own memory small
    }
    return { sent: streams * (count + 1), bytes: streams * count * size, ...(await heard) };
  },
  // Twenty tag requests of the PNG file ARG (a 6400 × 6400 image), then twenty on an image stream.
  async png(nc) {
    const png = fs.readFileSync(arg);
    const replies = [];
    for (let i = 0; i < 20; i++) replies.push(nc.request(P + "tag", png, { timeout: 20000 }).then((m) => m.json()));
    const tags = nc.subscribe(P + "tags.pngs", { max: 20 });
    await nc.flush();
    for (let i = 0; i < 20; i++) nc.publish(P + "image.pngs", png, { headers: hdr({ "Rfs-Seq": i }) });
    const streamed = [];
    for await (const m of tags) streamed.push(m.json());
    const all = [...(await Promise.all(replies)), ...streamed];
    const errors = [...new Set(all.map((r) => (r.error || "").replace(/[0-9]+/g, "N")))];
    return { sent: 40, bytes: 40 * png.length, answered: all.length, refused: all.filter((r) => r.error).length, errors };
  },
  // Messages at the server's size limit on every subject a stage reads, 16 of each.
  async big(nc) {
    const size = nc.info.max_payload - 1024;
    const payload = new Uint8Array(size);
    const heard = endings(nc, "bigpcm", 16, 30000);
    const tags = nc.subscribe(P + "tags.bigimg", { max: 16 });
    await nc.flush();
    const requests = [];
    for (let i = 0; i < 16; i++) {
      nc.publish(P + "pcm.bigpcm" + i, payload, { headers: hdr({ "Rfs-Seq": 0, "Rfs-Rate": 8000, "Rfs-Eos": 1 }) });
      nc.publish(P + "image.bigimg", payload, { headers: hdr({ "Rfs-Seq": i }) });
      nc.publish(P + "vector.bigvec" + i, payload, { headers: hdr({ "Rfs-Seq": 0, "Rfs-Final": 1 }) });
      nc.publish(P + "scores.bigsc" + i, payload, { headers: hdr({ "Rfs-Seq": 0, "Rfs-Final": 1 }) });
      requests.push(nc.request(P + "tag", payload, { timeout: 20000 }).then((m) => m.json()));
      await nc.flush();
    }
    const streamed = [];
    for await (const m of tags) streamed.push(m.json());
    const replies = [...(await Promise.all(requests)), ...streamed];
    return { sent: 80, bytes: 80 * size, ...(await heard), refusedImages: replies.filter((r) => r.error).length };
  },
  // ARG stream names, each one message of speech-free audio and no end, so that all go idle together; it waits
  // for nothing (the test counts their end-of-stream results).
  async expire(nc) {
    const streams = Number(arg);
    const payload = new Uint8Array(1600);
    for (let s = 0; s < streams; s++) {
      nc.publish(P + "pcm.idle" + s, payload, { headers: hdr({ "Rfs-Seq": 0, "Rfs-Rate": 8000 }) });
      if (s % 500 === 499) await nc.flush();
    }
    await nc.flush();
    return { sent: streams };
  },
  // As the confined client RFS_USER: ARG streams on its own voice's subject, one chunk of silence each and no end, as
  // many streams as it can hold; waits for each one's end-of-stream result (refused at once, or ended for idleness).
  async streams(nc) {
    const n = Number(arg);
    const me = process.env.RFS_USER;
    const errors = {};
    let ended = 0;
    let refused = 0;
    const sub = nc.subscribe(P + "result." + me + ".>");
    const done = (async () => {
      for await (const m of sub) {
        const r = m.json();
        if (r.error) errors[r.error.replace(/[0-9]+/g, "N")] = r.error;
        if (!r.eos) continue;
        if (r.error && r.error.includes("--max-voice-streams")) refused++;
        if (++ended === n) break;
      }
    })();
    await nc.flush();
    const payload = new Uint8Array(1600);
    for (let s = 0; s < n; s++) {
      nc.publish(P + "voice." + me + ".s" + s, payload, { headers: hdr({ "Rfs-Seq": 0, "Rfs-Rate": 8000 }) });
      if (s % 256 === 255) await nc.flush();
    }
    await nc.flush();
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 30000))]);
    return { sent: n, ended, refused, errors: Object.values(errors) };
  },
  // Forty tag requests of the PNG file ARG at once (small, slow to decode), then every answer.
  async tagbombs(nc) {
    const png = fs.readFileSync(arg);
    await nc.flush();
    const replies = [];
    for (let i = 0; i < 40; i++) replies.push(nc.request(P + "tag", png, { timeout: 60000 }).then((m) => m.json()));
    const all = await Promise.all(replies);
    const errors = [...new Set(all.map((r) => (r.error || "").replace(/[0-9]+/g, "N")))];
    return { sent: 40, bytes: 40 * png.length, answered: all.length, refused: all.filter((r) => r.error).length, errors };
  },
  // As a confined client (RFS_USER, RFS_PASS) or a guest (neither, nor RFS_SEED), for ARG ms: forge alice's results and the end of her streams
  // a0..a299 (300 messages every tenth of a second, one kind at a time), feed her decoder, and listen on her results;
  // count what the server refuses.
  async forge(nc) {
    const forged = JSON.stringify({ text: "forged", final: true, eos: true });
    let refused = 0;
    let overheard = 0;
    (async () => {
      for await (const s of nc.status()) if (String(s.error || s.data || "").includes("Permissions Violation")) refused++;
    })();
    const spy = nc.subscribe(P + "result.alice.>");
    (async () => {
      try { for await (const m of spy) overheard++; } catch (e) { /* refused: counted above */ }
    })();
    // And everything: a guest's subscription to ">" is taken, so only what the server delivers on it tells.
    const all = nc.subscribe(">");
    (async () => {
      try { for await (const m of all) if (m.subject.includes("alice")) overheard++; } catch (e) { /* refused: counted above */ }
    })();
    let sent = 0;
    for (let tick = 0, end = Date.now() + Number(arg); Date.now() < end; tick++) {
      for (let s = 0; s < 300; s++) {
        const stream = "alice.a" + s;
        if (tick % 3 === 0) nc.publish(P + "result." + stream, forged, { headers: hdr({ "Rfs-Eos": 1 }) });
        if (tick % 3 === 1) nc.publish(P + "voice." + stream, new Uint8Array(0), { headers: hdr({ "Rfs-Seq": 1, "Rfs-Eos": 1 }) });
        if (tick % 3 === 2) nc.publish(P + "scores." + stream, new Uint8Array(0), { headers: hdr({ "Rfs-Seq": 0, "Rfs-Eos": 1, "Rfs-Count": 0 }) });
        sent++;
      }
      await nc.flush();
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200));
    return { sent, refused, overheard };
  },
};

(async () => {
  const opts = { servers: "127.0.0.1:" + port };
  if (process.env.RFS_USER) Object.assign(opts, { user: process.env.RFS_USER, pass: process.env.RFS_PASS, inboxPrefix: "_INBOX." + process.env.RFS_USER });
  // The local tools' seed that serve's embedded server writes when it is given no credentials (RFS_SEED: its file).
  if (process.env.RFS_SEED) opts.authenticator = nkeyAuthenticator(new TextEncoder().encode(fs.readFileSync(process.env.RFS_SEED, "utf8").trim()));
  const nc = await connect(opts);
  // Started and connected, it waits for a line on standard input, so that node's own start is not counted as
  // the attack's.
  console.log("ready");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const start = Date.now();
  const out = await attacks[attack](nc);
  out.ms = Date.now() - start;
  console.log(JSON.stringify(out));
  // Not nc.close(): with a subscription the server refused, it waited for ever.
  process.exit(0);
})().catch((e) => {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
