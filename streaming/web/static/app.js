// The page: microphone → worklet → WebSocket → pipeline, results back;
// image files → POST /api/tag → top-k tags.
'use strict';
const $ = (id) => document.getElementById(id);
let cfg = { rate: 8000 };
fetch('api/config').then((r) => r.json()).then((c) => { cfg = c; $('voice').hidden = !c.learns_voices; });

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
    el.className = 'word';
    el.dataset.word = w.word;
    el.dataset.conf = w.conf.toFixed(3);
    el.title = `${w.start.toFixed(2)}–${w.end.toFixed(2)} s`;
    el.append(w.word);
    const c = document.createElement('small');
    c.textContent = w.conf.toFixed(2);
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
  if (r.eos && r.voice) {
    const v = r.voice;
    $('voice-progress').textContent = `Heard ${v.recordings} word${v.recordings === 1 ? '' : 's'} of this voice` +
      (v.adapted_on ? `; the model has self-trained on the first ${v.adapted_on}.` : '.');
  }
}

async function start() {
  $('start').disabled = true;
  $('audio-error').textContent = '';
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
    const ctx = new AudioContext();
    await ctx.audioWorklet.addModule('worklet.js');
    const node = new AudioWorkletNode(ctx, 'pcm-resampler', { processorOptions: { rate: cfg.rate } });
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const voice = voiceName(false);
    const ws = new WebSocket(`${proto}//${location.host}/ws/audio?rate=${cfg.rate}` + (voice ? `&voice=${voice}` : ''));
    const early = [];
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => { early.forEach((b) => ws.send(b)); early.length = 0; setStatus(`listening at ${cfg.rate} Hz`); };
    ws.onmessage = (e) => showResult(JSON.parse(e.data));
    ws.onclose = (e) => { if (e.code !== 1000) $('audio-error').textContent = `connection closed: ${e.reason || e.code}`; };
    node.port.onmessage = (e) => { if (ws.readyState === WebSocket.OPEN) ws.send(e.data); else early.push(e.data); };
    const src = ctx.createMediaStreamSource(stream);
    src.connect(node);
    node.connect(ctx.destination); // keeps the worklet pulled; it outputs silence
    rec = { ctx, stream, node, ws };
    $('stop').disabled = false;
  } catch (err) {
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
  setStatus('finishing');
  $('start').disabled = false;
}

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

$('file').onchange = (e) => { for (const f of e.target.files) tagFile(f); e.target.value = ''; };
const drop = $('drop');
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove('over'); for (const f of e.dataTransfer.files) tagFile(f); };
