// pcm-resampler: takes the microphone at the context's rate, low-passes
// and resamples it to the model's rate with a windowed-sinc interpolator,
// and posts 16-bit PCM chunks of about 100 ms to the page (the first of
// 30 ms).
class PCMResampler extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.out = options.processorOptions.rate;
    this.step = sampleRate / this.out;            // input samples per output sample
    this.cut = Math.min(1, this.out / sampleRate) * 0.9; // cutoff, cycles per input sample ×2
    this.half = Math.ceil(8 / this.cut);          // taps on each side of the centre
    this.buf = new Float32Array(0);               // input not yet consumed
    this.t = this.half;                           // position of the next output in buf
    this.chunk = new Int16Array(Math.round(this.out / 10));
    // The first chunk goes after 30 ms, one analysis frame and a bit, so
    // the page's meter moves as soon as the server has a frame to show.
    this.first = Math.round(this.out * 0.03);
    this.n = 0;
    this.port.onmessage = (e) => { if (e.data === 'flush') this.flush(); };
  }
  kernel(u) {
    const x = u * this.cut;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = 0.5 + 0.5 * Math.cos(Math.PI * u / (this.half + 1)); // Hann window
    return this.cut * sinc * w;
  }
  emit(v) {
    this.chunk[this.n++] = Math.max(-32768, Math.min(32767, Math.round(v * 32768)));
    if (this.n === this.chunk.length || this.n === this.first) this.flush();
  }
  flush() {
    if (this.n > 0) this.port.postMessage(this.chunk.slice(0, this.n).buffer);
    this.n = 0;
    this.first = 0;
  }
  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const ch = input[0];
    const buf = new Float32Array(this.buf.length + ch.length);
    buf.set(this.buf);
    buf.set(ch, this.buf.length);
    while (this.t + this.half < buf.length) {
      const c = Math.floor(this.t);
      let y = 0;
      for (let k = c - this.half + 1; k <= c + this.half; k++) y += buf[k] * this.kernel(this.t - k);
      this.emit(y);
      this.t += this.step;
    }
    // Keep what the next outputs still need.
    const keep = Math.floor(this.t) - this.half + 1;
    this.buf = buf.slice(keep);
    this.t -= keep;
    return true;
  }
}
registerProcessor('pcm-resampler', PCMResampler);
