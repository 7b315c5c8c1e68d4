// The page: microphone → worklet → WebSocket → pipeline, results back;
// an audio file → POST /api/recognize → its words; image files → POST
// /api/tag → top-k tags.
'use strict';
const $ = (id) => document.getElementById(id);
let cfg = { rate: 8000 };
const configured = fetch('api/config').then((r) => r.json()).then((c) => { cfg = c; $('voice').hidden = !c.learns_voices; $('teach-row').hidden = !c.teaches; })
  .catch((err) => { $('audio-error').textContent = `configuration: ${err.message || err}`; });

// The voice this browser speaks with. Every recording names it, so the
// server treats them as one voice's and, with a model that adapts, learns
// the voice across them (voice.<voice> in docs/streaming.md). The name is
// random and kept in this browser only; "Forget this voice" drops it on the
// server and starts another.
function voiceName(renew) {
  try {
    let v = localStorage.getItem('rfs-voice');
    if (!v || renew) {
      const b = new Uint8Array(12);
      crypto.getRandomValues(b);
      v = 'web-' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      localStorage.setItem('rfs-voice', v);
    }
    return v;
  } catch (err) {
    return ''; // storage refused: each recording is a voice of its own
  }
}

let rec = null; // the current recording: {ctx, stream, node, ws}

function setStatus(s) { $('status').textContent = s; }

// What the page says it hears, one of: idle, listening, speech (a word or
// utterance is open), heard (the digits so far), rejected (the last word
// closed is not a digit), no-speech, done (the digits of the recording).
const stateText = { idle: 'idle', listening: 'listening', speech: 'hearing speech', 'no-speech': 'no speech', rejected: 'not a digit' };
function setState(state, text) {
  const el = $('state');
  el.dataset.state = state;
  el.textContent = text || stateText[state] || state;
  if (state === 'listening') mark('tListening');
}

// Milliseconds from pressing Start to the first feedback (tListening,
// tFirstFrame) and to the steps on the way (tSocket, tMic): the browser
// test reads them from data-t-… on <body>.
let startedAt = 0;
const marks = ['tListening', 'tFirstFrame', 'tSocket', 'tMic'];
function mark(key) {
  if (startedAt && !(key in document.body.dataset)) {
    document.body.dataset[key] = (performance.now() - startedAt).toFixed(1);
  }
}

// The level meter and the spectrogram draw the frontend's own log-mel
// frames, which the server sends as binary frames messages
// (docs/streaming.md): a 16-byte header, then per frame its log energy and
// its bands, each byte q standing for low + q·step in natural-log units.
const spectrum = { next: 0 };
function showFrames(buf) {
  const b = new DataView(buf);
  if (buf.byteLength < 16 || b.getUint8(0) !== 1) return;
  const bands = b.getUint8(1), n = b.getUint16(2, true), first = b.getUint32(4, true);
  const low = b.getFloat32(8, true), step = b.getFloat32(12, true);
  if (buf.byteLength !== 16 + n * (1 + bands)) return;
  const rows = new Uint8Array(buf, 16);
  const canvas = $('spectrogram');
  const g = canvas.getContext('2d');
  // Frames of a message the server dropped for a slow page stay dark.
  const cols = Math.min(canvas.width, n + Math.max(0, first - spectrum.next));
  g.drawImage(canvas, -cols, 0);
  g.fillStyle = '#000';
  g.fillRect(canvas.width - cols, 0, cols, canvas.height);
  const img = g.createImageData(n, canvas.height);
  let peak = -Infinity;
  for (let f = 0; f < n; f++) {
    const row = rows.subarray(f * (1 + bands), (f + 1) * (1 + bands));
    peak = Math.max(peak, low + row[0] * step);
    for (let y = 0; y < canvas.height; y++) {
      const band = bands - 1 - Math.floor(y * bands / canvas.height); // low bands at the bottom
      const c = heat(low + row[1 + band] * step);
      const i = 4 * (y * n + f);
      img.data[i] = c[0]; img.data[i + 1] = c[1]; img.data[i + 2] = c[2]; img.data[i + 3] = 255;
    }
  }
  g.putImageData(img, canvas.width - n, 0);
  spectrum.next = first + n;
  // Log energy in dB (10·log10 e^v); the bar spans -60 … +10 dB.
  const db = 10 * peak / Math.LN10;
  $('meter-bar').style.width = `${Math.round(100 * Math.min(1, Math.max(0, (db + 60) / 70)))}%`;
  $('meter').dataset.db = db.toFixed(1);
  document.body.dataset.frames = spectrum.next;
  mark('tFirstFrame');
}

// heat colours a log-mel value: dark for a quiet room's floor, through
// red to yellow for the loudest bands speech reaches (-12 … +4 in ln units).
function heat(v) {
  const x = Math.min(1, Math.max(0, (v + 12) / 16));
  return [Math.round(255 * Math.min(1, 2 * x)), Math.round(255 * Math.max(0, 2 * x - 1)), Math.round(140 * (1 - x) * (x < 0.5 ? 2 * x + 0.3 : 1))];
}

// digits are the words of a result that are not rejected.
const digits = (words) => words.filter((w) => !w.rejected).map((w) => w.word).join(' ');

function showResult(r) {
  if (r.error) { $('audio-error').textContent = r.error; }
  // How many partial hypotheses arrived: shown nowhere, read by tests.
  if (!r.final && !r.error) document.body.dataset.partials = +(document.body.dataset.partials || 0) + 1;
  const words = r.words || [];
  const closed = r.final ? words : words.slice(0, -1);
  $('partial').textContent = r.final ? '\u00a0' : (words.length ? words[words.length - 1].word : '\u00a0');
  const box = $('words');
  box.textContent = '';
  for (const w of closed) {
    const el = document.createElement('span');
    el.className = w.rejected ? 'word rejected' : 'word';
    el.dataset.word = w.word;
    el.dataset.conf = w.conf.toFixed(3);
    if (w.rejected) el.dataset.rejected = 'true';
    el.title = `${w.start.toFixed(2)}–${w.end.toFixed(2)} s` + (w.rejected ? ': not a digit' : '');
    el.append(w.word);
    const c = document.createElement('small');
    c.textContent = w.rejected ? 'not a digit' : w.conf.toFixed(2);
    el.append(c);
    box.append(el);
  }
  // The end of a recording in which nothing was heard as a word (silence,
  // noise): say so rather than leave the box empty.
  if (r.eos && r.no_speech) {
    const el = document.createElement('span');
    el.className = 'no-speech';
    el.textContent = 'no speech';
    box.append(el);
  }
  if (r.eos) setStatus(r.no_speech ? 'done: no speech' : 'done');
  showState(r, closed);
  if (r.eos && r.voice) {
    const v = r.voice;
    $('voice-progress').textContent = `Heard ${v.recordings} word${v.recordings === 1 ? '' : 's'} of this voice` +
      (v.adapted_on ? `; the model has self-trained on the first ${v.adapted_on}.` : '.');
  }
}

// showState sets the state a result leaves the page in.
function showState(r, closed) {
  if (r.error) return;
  const last = closed[closed.length - 1];
  const heard = digits(closed);
  if (r.no_speech && (r.final || r.eos)) setState('no-speech');
  else if (r.eos) setState('done', heard || 'no digits');
  else if (!r.final) setState('speech');
  else if (last && last.rejected) setState('rejected');
  else if (heard) setState('heard', heard);
  else setState('listening');
}

async function start(e) {
  startedAt = e && e.timeStamp ? e.timeStamp : performance.now();
  marks.forEach((k) => delete document.body.dataset[k]);
  $('start').disabled = true;
  $('audio-error').textContent = '';
  setState('idle', 'starting');
  spectrum.next = 0; // frame indices start again with every stream
  await configured;
  // The socket opens while the microphone does, so neither waits for the other.
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const voice = voiceName(false);
  const ws = new WebSocket(`${proto}//${location.host}/ws/audio?rate=${cfg.rate}` + (cfg.frames ? '&frames=1' : '') +
    (voice ? `&voice=${voice}` : ''));
  const early = [];
  let micOpen = false;
  const ready = () => { if (micOpen && ws.readyState === WebSocket.OPEN) setState('listening'); };
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => { mark('tSocket'); early.forEach((b) => ws.send(b)); early.length = 0; setStatus(`listening at ${cfg.rate} Hz`); ready(); };
  ws.onmessage = (e) => { if (typeof e.data === 'string') showResult(JSON.parse(e.data)); else showFrames(e.data); };
  ws.onclose = (e) => { if (e.code !== 1000) $('audio-error').textContent = `connection closed: ${e.reason || e.code}`; };
  // The audio graph is built while the browser opens the microphone.
  const ctx = new AudioContext();
  try {
    const [stream] = await Promise.all([
      navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } }),
      ctx.audioWorklet.addModule('worklet.js')]);
    const node = new AudioWorkletNode(ctx, 'pcm-resampler', { processorOptions: { rate: cfg.rate } });
    node.port.onmessage = (e) => { if (ws.readyState === WebSocket.OPEN) ws.send(e.data); else early.push(e.data); };
    const src = ctx.createMediaStreamSource(stream);
    src.connect(node);
    node.connect(ctx.destination); // keeps the worklet pulled; it outputs silence
    rec = { ctx, stream, node, ws };
    micOpen = true;
    mark('tMic');
    ready();
    $('stop').disabled = false;
  } catch (err) {
    ws.close(); // the server ends the stream it opened
    ctx.close();
    setState('idle');
    $('audio-error').textContent = `microphone: ${err.message || err}`;
    $('start').disabled = false;
  }
}

async function stop() {
  if (!rec) return;
  const { ctx, stream, node, ws } = rec;
  rec = null;
  $('stop').disabled = true;
  node.port.postMessage('flush');
  await new Promise((r) => setTimeout(r, 50)); // let the last chunk arrive
  stream.getTracks().forEach((t) => t.stop());
  await ctx.close();
  if (ws.readyState === WebSocket.OPEN) ws.send('end');
  $('meter-bar').style.width = '0';
  setStatus('finishing');
  $('start').disabled = false;
}

// Teaching the voice (POST /api/teach): the ten digits in a random order
// (?prompts=a,b,… gives others, in order), each shown for teachSeconds
// while the microphone runs without a break; each prompt's stretch of
// samples (cut by count, so the stretches follow the audio exactly) is
// posted as that word. A refused one (too quiet, clipped, …) is asked
// again at the end, up to three times. Later recordings name the same
// voice, so the server hears them as taught.
const teachSeconds = 2.5;
async function teach() {
  await configured;
  const voice = voiceName(false);
  if (!voice) { $('teach-status').textContent = 'this browser keeps no voice name (storage refused)'; return; }
  const given = new URLSearchParams(location.search).get('prompts');
  let prompts = given ? given.split(',') : ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
  if (!given) for (let i = prompts.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [prompts[i], prompts[j]] = [prompts[j], prompts[i]]; }
  $('teach').disabled = $('start').disabled = true;
  const ctx = new AudioContext();
  let stream;
  const chunks = []; let have = 0; let wake = null;
  try {
    [stream] = await Promise.all([
      navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } }),
      ctx.audioWorklet.addModule('worklet.js')]);
    const node = new AudioWorkletNode(ctx, 'pcm-resampler', { processorOptions: { rate: cfg.rate } });
    node.port.onmessage = (e) => {
      const c = new Int16Array(e.data);
      let sq = 0; for (const v of c) sq += v * v;
      $('meter-bar').style.width = `${Math.min(100, 100 * Math.sqrt(sq / Math.max(c.length, 1)) / 8000)}%`;
      chunks.push(c); have += c.length;
      if (wake) wake();
    };
    ctx.createMediaStreamSource(stream).connect(node);
    node.connect(ctx.destination);
  } catch (err) {
    ctx.close();
    $('teach').disabled = $('start').disabled = false;
    $('teach-status').textContent = `microphone: ${err.message || err}`;
    return;
  }
  const take = async (n) => { // the next n samples of the microphone
    while (have < n) await new Promise((r) => { wake = r; });
    wake = null;
    const out = new Int16Array(n); let at = 0;
    while (at < n) {
      const c = chunks[0]; const k = Math.min(c.length, n - at);
      out.set(c.subarray(0, k), at); at += k;
      if (k === c.length) chunks.shift(); else chunks[0] = c.subarray(k);
    }
    have -= n;
    return out;
  };
  let learnt = 0; const tries = {};
  for (let i = 0; i < prompts.length; i++) {
    const word = prompts[i];
    setState('listening', `say ${word === '0' ? '0 (zero)' : word}`);
    const pcm = await take(Math.round(teachSeconds * cfg.rate));
    const r = await fetch(`api/teach?voice=${voice}&word=${encodeURIComponent(word)}&rate=${cfg.rate}`, { method: 'POST', body: pcm.buffer });
    if (r.ok) { learnt++; continue; }
    const why = (await r.text()).trim();
    tries[word] = (tries[word] || 0) + 1;
    $('teach-status').textContent = `"${word}": ${why}` + (tries[word] < 3 ? '; it will be asked again' : '');
    if (tries[word] < 3) prompts.push(word);
  }
  stream.getTracks().forEach((t) => t.stop());
  await ctx.close();
  $('meter-bar').style.width = '0';
  setState('idle');
  $('teach-status').textContent = `Learnt ${learnt} word${learnt === 1 ? '' : 's'} of your voice.`;
  $('teach').disabled = $('start').disabled = false;
}

$('teach').onclick = teach;
$('start').onclick = start;
$('stop').onclick = stop;
// Forgetting asks the server to drop what it learnt of this voice (and its
// file), then names a new one for whoever speaks next.
$('forget-voice').onclick = async () => {
  const voice = voiceName(false);
  try {
    const r = await fetch(`api/forget-voice?voice=${voice}`, { method: 'POST' });
    if (!r.ok) { $('audio-error').textContent = `forgetting the voice: ${(await r.text()).trim()}`; return; }
  } catch (err) {
    $('audio-error').textContent = `forgetting the voice: ${err.message || err}`;
    return;
  }
  voiceName(true);
  setStatus('voice forgotten');
  $('voice-progress').textContent = '';
};

// A recording from a file: the server decodes it (WAV, FLAC, Ogg, MP3 or
// SPHERE, told apart by its header, not its name) and hears it through the
// same pipeline as the microphone, as this browser's voice; the answer is
// the recording's end-of-stream result.
async function hearFile(file) {
  $('audio-error').textContent = '';
  setStatus(`hearing ${file.name}`);
  setState('speech', `hearing ${file.name}`);
  try {
    await configured;
    const v = cfg.learns_voices ? voiceName(false) : '';
    const r = await fetch('api/recognize' + (v ? `?voice=${encodeURIComponent(v)}` : ''), { method: 'POST', body: file });
    if (!r.ok) throw new Error(await r.text());
    showResult(await r.json());
  } catch (err) {
    $('audio-error').textContent = `${file.name}: ${err.message || err}`;
    setStatus('idle');
    setState('idle');
  }
}
$('audio-file').onchange = (e) => { const f = e.target.files[0]; e.target.value = ''; if (f) hearFile(f); };

// Images: the server's frontend decodes PNG, JPEG and PGM alike; the
// preview uses the browser's decoder, so PGM files show no thumbnail.
async function tagFile(file) {
  const card = document.createElement('div');
  card.className = 'image';
  const img = document.createElement('img');
  img.alt = '';
  if (!/\.pgm$/i.test(file.name)) img.src = URL.createObjectURL(file);
  const info = document.createElement('div');
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = file.name;
  info.append(name);
  card.append(img, info);
  $('results').prepend(card);
  try {
    const r = await fetch('api/tag', { method: 'POST', body: file });
    if (!r.ok) throw new Error(await r.text());
    const t = await r.json();
    if (t.error) throw new Error(t.error);
    if (t.out_of_domain) {
      // The model's out-of-domain rule: its tags below are only guesses.
      const o = document.createElement('div');
      o.className = 'ood';
      o.textContent = `out of domain (familiarity ${t.familiarity.toFixed(2)}); best guesses:`;
      info.append(o);
    }
    for (const tag of t.tags) {
      const row = document.createElement('div');
      row.className = 'tag';
      row.dataset.label = tag.label;
      const b = document.createElement('b');
      b.textContent = tag.label;
      const bar = document.createElement('div');
      bar.className = 'bar';
      bar.style.width = `${Math.round(120 * tag.score)}px`;
      const s = document.createElement('span');
      s.textContent = tag.score.toFixed(2);
      row.append(b, bar, s);
      info.append(row);
    }
  } catch (err) {
    const e = document.createElement('div');
    e.className = 'error';
    e.textContent = err.message;
    info.append(e);
  }
}

// The server tags at most two images of an address at once and refuses
// more (429), so the page sends a folder's images two at a time.
const tagWaiting = [];
let tagging = 0;
function pumpTags() {
  while (tagging < 2 && tagWaiting.length) {
    tagging++;
    tagFile(tagWaiting.shift()).finally(() => { tagging--; pumpTags(); });
  }
}
function queueTag(file) { tagWaiting.push(file); pumpTags(); }
$('file').onchange = (e) => { for (const f of e.target.files) queueTag(f); e.target.value = ''; };
const drop = $('drop');
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove('over'); for (const f of e.dataTransfer.files) queueTag(f); };
