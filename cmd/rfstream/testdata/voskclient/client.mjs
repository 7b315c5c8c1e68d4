// A Vosk WebSocket client written from the Vosk server's documented
// protocol (vosk-server's websocket/test.py and README): it sends
// {"config": {"sample_rate": N}}, then the WAV file's PCM in 0.2 s chunks,
// waiting for the one reply to each, then {"eof" : 1}, and waits for the
// final reply and the server's close. With --as-read it does what Vosk's
// Node example (client-samples/node) does instead: the file as it is read,
// header and all, in 64 KiB reads, no configuration, without waiting for
// replies. Every reply is printed on its own line; the exit status is 0
// only when the server closed normally (1000).
//
// usage: node client.mjs [--as-read] ws://HOST:PORT/PATH FILE.wav
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const asRead = process.argv[2] === '--as-read';
const [url, path] = process.argv.slice(asRead ? 3 : 2);
const wav = readFileSync(path);

// The fmt and data chunks of a RIFF/WAVE file (16-bit mono PCM).
function pcmOf(buf) {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${path}: not a WAV file`);
  let rate = 0;
  for (let off = 12; off + 8 <= buf.length;) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ') rate = buf.readUInt32LE(off + 12);
    if (id === 'data') return { rate, data: buf.subarray(off + 8, off + 8 + size) };
    off += 8 + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

const { rate, data } = pcmOf(wav);
const ws = new WebSocket(url);
const replies = [];
let waiting = null;
ws.on('message', (msg) => {
  const text = msg.toString();
  console.log(text);
  if (waiting) { const w = waiting; waiting = null; w(text); } else replies.push(text);
});
const recv = () => new Promise((resolve) => { if (replies.length) resolve(replies.shift()); else waiting = resolve; });
const closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
ws.on('error', (e) => { console.error(`websocket: ${e.message}`); process.exit(2); });

async function closedNormally() {
  const { code, reason } = await closed;
  if (code !== 1000) {
    console.error(`closed with ${code} ${reason}`);
    process.exit(1);
  }
  process.exit(0);
}

ws.on('open', async () => {
  if (asRead) {
    for (let off = 0; off < wav.length; off += 65536) ws.send(wav.subarray(off, off + 65536));
    ws.send('{"eof" : 1}');
    return closedNormally();
  }
  ws.send(JSON.stringify({ config: { sample_rate: rate } }));
  const chunk = Math.floor(rate * 0.2) * 2; // 0.2 s of 16-bit samples
  for (let off = 0; off < data.length; off += chunk) {
    ws.send(data.subarray(off, off + chunk));
    await recv();
  }
  ws.send('{"eof" : 1}');
  await recv();
  return closedNormally();
});
