/**
 * NumPy's default generator, bit for bit: `np.random.default_rng(seed)` is
 * a SeedSequence that hashes the seed into a pool, and a PCG64 seeded from
 * the pool; `random()` and `standard_normal()` turn its 64-bit words into
 * doubles as NumPy's Generator does.
 *
 * 128-bit arithmetic is done on eight 16-bit limbs in doubles (every partial
 * product and carry is below 2**53, so exact); 32-bit hashing with Math.imul.
 */
import { FI, KI, WI } from "./ziggurat.js";

// SeedSequence's constants (numpy.random.bit_generator)
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

/** PCG64's multiplier, 0x2360ED051FC65DA44385DF649FCCF645, as 16-bit limbs, least significant first. */
const MULT = [0xf645, 0x9fcc, 0xdf64, 0x4385, 0x5da4, 0x1fc6, 0xed05, 0x2360];
const TWO16 = 65536;
const INV16 = 1 / 65536;
const TWO_M53 = 2 ** -53;
/** NumPy's ziggurat_nor_r (where the tail begins, 3.6541528853610087963519472518) and its inverse, as doubles. */
const ZIGGURAT_R = 3.654152885361009;
const ZIGGURAT_INV_R = 0.2736612373297583;

/**
 * A whole number >= 0 (below 2**53) as 32-bit words, least significant first; 0 is [0].
 * @param {number} n
 * @returns {number[]}
 */
function toWords(n) {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a seed is a whole number >= 0, not ${n}`);
  const words = [n % 2 ** 32];
  if (n >= 2 ** 32) words.push(Math.floor(n / 2 ** 32));
  return words;
}

/** @param {number} value @param {{h: number}} hash @returns {number} SeedSequence's hashmix */
function hashmix(value, hash) {
  let v = (value ^ hash.h) >>> 0;
  hash.h = Math.imul(hash.h, MULT_A) >>> 0;
  v = Math.imul(v, hash.h) >>> 0;
  return (v ^ (v >>> 16)) >>> 0;
}

/** @param {number} x @param {number} y @returns {number} SeedSequence's mix */
function mix(x, y) {
  const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
  return (r ^ (r >>> 16)) >>> 0;
}

/**
 * SeedSequence(entropy).generate_state(words, uint32): the pool, then the words.
 * @param {number | readonly number[]} entropy a seed, or a list of them (as np.random.default_rng takes)
 * @param {number} count 32-bit words wanted
 * @returns {number[]}
 */
export function seedSequenceWords(entropy, count) {
  const input = (typeof entropy === "number" ? [entropy] : entropy).flatMap(toWords);
  const pool = new Array(POOL_SIZE).fill(0);
  const hash = { h: INIT_A };
  for (let i = 0; i < POOL_SIZE; i += 1) pool[i] = hashmix(i < input.length ? input[i] : 0, hash);
  for (let src = 0; src < POOL_SIZE; src += 1) {
    for (let dst = 0; dst < POOL_SIZE; dst += 1) {
      if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash));
    }
  }
  for (let src = POOL_SIZE; src < input.length; src += 1) {
    for (let dst = 0; dst < POOL_SIZE; dst += 1) pool[dst] = mix(pool[dst], hashmix(input[src], hash));
  }
  const out = [];
  let h = INIT_B;
  for (let i = 0; i < count; i += 1) {
    let v = (pool[i % POOL_SIZE] ^ h) >>> 0;
    h = Math.imul(h, MULT_B) >>> 0;
    v = Math.imul(v, h) >>> 0;
    out.push((v ^ (v >>> 16)) >>> 0);
  }
  return out;
}

/**
 * Two 64-bit words (each as [low32, high32]) as a 128-bit number (high word first) in 16-bit limbs.
 * @param {number} highLow @param {number} highHigh @param {number} lowLow @param {number} lowHigh
 * @returns {number[]}
 */
function limbs128(highLow, highHigh, lowLow, lowHigh) {
  return [lowLow & 0xffff, lowLow >>> 16, lowHigh & 0xffff, lowHigh >>> 16,
    highLow & 0xffff, highLow >>> 16, highHigh & 0xffff, highHigh >>> 16];
}

/** NumPy's PCG64 (XSL-RR 128/64) with NumPy's Generator's conversions to doubles. */
export class Pcg64 {
  /**
   * Seeded as np.random.default_rng(seed) seeds it.
   * @param {number | readonly number[]} seed a whole number >= 0, or a list of them
   */
  constructor(seed) {
    // generate_state(4, uint64): words 0, 1 the initial state (high, low), 2, 3 the stream
    const w = seedSequenceWords(seed, 8);
    const initState = limbs128(w[0], w[1], w[2], w[3]);
    const initSeq = limbs128(w[4], w[5], w[6], w[7]);
    /** the increment: (initseq << 1) | 1 */
    this.inc = new Float64Array(8);
    let carry = 1;
    for (let k = 0; k < 8; k += 1) {
      const v = initSeq[k] * 2 + carry;
      this.inc[k] = v % TWO16;
      carry = Math.floor(v / TWO16);
    }
    /** the state, 16-bit limbs, least significant first */
    this.s = new Float64Array(8);
    /** the last output's high and low 32 bits */
    this.high = 0;
    this.low = 0;
    this.step();
    carry = 0;
    for (let k = 0; k < 8; k += 1) {
      const v = this.s[k] + initState[k] + carry;
      this.s[k] = v % TWO16;
      carry = Math.floor(v / TWO16);
    }
    this.step();
  }

  /** state = state * MULT + inc, mod 2**128. */
  step() {
    const s = this.s;
    const inc = this.inc;
    let carry = 0;
    const s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5], s6 = s[6], s7 = s[7];
    for (let k = 0; k < 8; k += 1) {
      let v = carry + inc[k];
      // sum of s[i] * MULT[k - i]: at most eight products below 2**32
      switch (k) {
        case 7: v += s7 * MULT[0] + s6 * MULT[1] + s5 * MULT[2] + s4 * MULT[3] + s3 * MULT[4] + s2 * MULT[5] + s1 * MULT[6] + s0 * MULT[7]; break;
        case 6: v += s6 * MULT[0] + s5 * MULT[1] + s4 * MULT[2] + s3 * MULT[3] + s2 * MULT[4] + s1 * MULT[5] + s0 * MULT[6]; break;
        case 5: v += s5 * MULT[0] + s4 * MULT[1] + s3 * MULT[2] + s2 * MULT[3] + s1 * MULT[4] + s0 * MULT[5]; break;
        case 4: v += s4 * MULT[0] + s3 * MULT[1] + s2 * MULT[2] + s1 * MULT[3] + s0 * MULT[4]; break;
        case 3: v += s3 * MULT[0] + s2 * MULT[1] + s1 * MULT[2] + s0 * MULT[3]; break;
        case 2: v += s2 * MULT[0] + s1 * MULT[1] + s0 * MULT[2]; break;
        case 1: v += s1 * MULT[0] + s0 * MULT[1]; break;
        default: v += s0 * MULT[0];
      }
      carry = Math.floor(v * INV16); // exact: v is a whole number below 2**53, the scale a power of two
      s[k] = v - carry * TWO16;
    }
  }

  /** Step, then output rotr64(high64 ^ low64, state >> 122) into this.high, this.low. */
  next64() {
    this.step();
    const s = this.s;
    const xHigh = ((s[7] * TWO16 + s[6]) ^ (s[3] * TWO16 + s[2])) >>> 0;
    const xLow = ((s[5] * TWO16 + s[4]) ^ (s[1] * TWO16 + s[0])) >>> 0;
    let rot = s[7] >>> 10;
    let h = xHigh;
    let l = xLow;
    if (rot >= 32) {
      h = xLow;
      l = xHigh;
      rot -= 32;
    }
    if (rot === 0) {
      this.high = h;
      this.low = l;
    } else {
      this.high = ((h >>> rot) | (l << (32 - rot))) >>> 0;
      this.low = ((l >>> rot) | (h << (32 - rot))) >>> 0;
    }
  }

  /**
   * Generator.random(): the top 53 bits of the next word times 2**-53, in [0, 1).
   * @returns {number}
   */
  random() {
    this.next64();
    return (this.high * 2097152 + (this.low >>> 11)) * TWO_M53;
  }

  /**
   * Generator.standard_normal(): NumPy's ziggurat, draw for draw.  The tail
   * uses Math.log1p and the wedges Math.exp where NumPy calls the C
   * library's log1p and exp (see inputs.js on what that means for matching).
   * @returns {number}
   */
  standardNormal() {
    for (;;) {
      this.next64();
      const idx = this.low & 0xff;
      const sign = (this.low >>> 8) & 1;
      // bits 9 .. 60 of the word: the 52-bit magnitude
      const rabs = (this.high & 0x1fffffff) * 8388608 + (this.low >>> 9);
      let x = rabs * WI[idx];
      if (sign) x = -x;
      if (rabs < KI[idx]) return x;
      if (idx === 0) {
        const tailNegative = Math.floor(rabs / 256) % 2 === 1; // bit 8 of the magnitude
        for (;;) {
          const xx = -ZIGGURAT_INV_R * Math.log1p(-this.random());
          const yy = -Math.log1p(-this.random());
          if (yy + yy > xx * xx) return tailNegative ? -(ZIGGURAT_R + xx) : ZIGGURAT_R + xx;
        }
      }
      if ((FI[idx - 1] - FI[idx]) * this.random() + FI[idx] < Math.exp(-0.5 * x * x)) return x;
    }
  }
}
