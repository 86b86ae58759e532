// G1/G2 cross-check against @noble/curves (driven by tests/ec_noble.test.sh).
//   node ec_oracle.mjs SEED CUZK_CASES NOBLE_CASES
// 1. checks every case cuzk wrote (tests/tool_ec_oracle.c gen) with noble;
// 2. writes its own random cases (seeded by SEED) for cuzk to check.
// Line formats are described in tests/tool_ec_oracle.c.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const [seed, cFile, nFile] = process.argv.slice(2);
if (!nFile) {
  console.error('usage: node ec_oracle.mjs SEED CUZK_CASES NOBLE_CASES');
  process.exit(2);
}
const { Fp, Fp2, Fr } = bls12_381.fields;
const P = Fp.ORDER;
const groups = { 1: bls12_381.G1.Point, 2: bls12_381.G2.Point };
const B2 = Fp2.fromBigTuple([4n, 4n]);

// Deterministic stream: SHA-256(seed || counter).
let ctr = 0;
function randBig(bytes) {
  let h = Buffer.alloc(0);
  while (h.length < bytes) h = Buffer.concat([h, createHash('sha256').update(`${seed}:${ctr++}`).digest()]);
  return BigInt('0x' + h.subarray(0, bytes).toString('hex'));
}
const randFp = () => randBig(64) % P;
const randScalar = () => (randBig(40) % (Fr.ORDER - 1n)) + 1n;

const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const be48 = (n) => unhex(n.toString(16).padStart(96, '0'));
const cat = (...a) => { const r = new Uint8Array(a.reduce((s, x) => s + x.length, 0)); let o = 0; for (const x of a) { r.set(x, o); o += x.length; } return r; };
const big = (b) => BigInt('0x' + hex(b));

let passed = 0, failed = 0;
function check(cond, msg) {
  if (cond) passed++;
  else { failed++; if (failed <= 20) console.error('ec_oracle: FAIL: ' + msg); }
}
function decode(G, b) {
  try { return G.fromBytes(b); } catch (e) { return null; }
}

// ---- 1. check cuzk's cases -------------------------------------------------
const lenient = { total: 0, accepted: 0 };
const counts = {};
for (const line of readFileSync(cFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const t = line.trim().split(/\s+/);
  const G = groups[t[1]];
  const key = `${t[0]}${t[1]}`;
  counts[key] = (counts[key] || 0) + 1;
  if (t[0] === 'mul') {
    const k = BigInt('0x' + t[2]);
    const R = G.BASE.multiply(k);
    check(hex(R.toBytes(true)) === t[3], `G${t[1]} mul compressed k=${t[2]}`);
    check(hex(R.toBytes(false)) === t[4], `G${t[1]} mul uncompressed k=${t[2]}`);
  } else if (t[0] === 'add') {
    const A = decode(G, unhex(t[2])), B = decode(G, unhex(t[3]));
    check(A && B, `G${t[1]} add operands rejected: ${t[2]} ${t[3]}`);
    if (A && B) {
      const S = A.add(B);
      check(hex(S.toBytes(true)) === t[4], `G${t[1]} add compressed`);
      check(hex(S.toBytes(false)) === t[5], `G${t[1]} add uncompressed`);
    }
  } else if (t[0] === 'good') {
    const b = unhex(t[2]);
    const A = decode(G, b);
    check(A && hex(A.toBytes(b.length === (t[1] === '1' ? 48 : 96))) === t[2], `G${t[1]} good ${t[2]}`);
  } else if (t[0] === 'bad') {
    const A = decode(G, unhex(t[3]));
    if (t[2] === 'noncanon' || t[2] === 'flags_lenient') {
      // noble reduces coordinates mod p and ignores some flag bits by design.
      lenient.total++;
      if (A) lenient.accepted++;
    } else {
      check(A === null, `G${t[1]} noble accepted cuzk's bad ${t[2]} ${t[3]}`);
    }
  } else {
    check(false, 'malformed line ' + line.slice(0, 40));
  }
}

// ---- 2. noble's own cases --------------------------------------------------
const out = [];
function curvePoint(g, wantRoot) {
  // random x; returns {x, y} on the curve (wantRoot) or {x} with no root
  for (;;) {
    if (g === 1) {
      const x = randFp();
      const rhs = Fp.add(Fp.pow(x, 3n), 4n);
      let y = null;
      try { y = Fp.sqrt(rhs); } catch (e) { y = null; }
      if (wantRoot && y !== null) return { x, y };
      if (!wantRoot && y === null) return { x };
    } else {
      const x = Fp2.fromBigTuple([randFp(), randFp()]);
      const rhs = Fp2.add(Fp2.pow(x, 3n), B2);
      let y = null;
      try { y = Fp2.sqrt(rhs); } catch (e) { y = null; }
      if (wantRoot && y !== null) return { x, y };
      if (!wantRoot && y === null) return { x };
    }
  }
}
const largest = (v) => v * 2n > P;
function encRaw(g, pt, compressed) {
  if (g === 1) {
    if (compressed) { const b = be48(pt.x); b[0] |= 0x80 | (pt.y !== undefined && largest(pt.y) ? 0x20 : 0); return b; }
    return cat(be48(pt.x), be48(pt.y));
  }
  if (compressed) {
    const b = cat(be48(pt.x.c1), be48(pt.x.c0));
    const s = pt.y === undefined ? false : pt.y.c1 !== 0n ? largest(pt.y.c1) : largest(pt.y.c0);
    b[0] |= 0x80 | (s ? 0x20 : 0);
    return b;
  }
  return cat(be48(pt.x.c1), be48(pt.x.c0), be48(pt.y.c1), be48(pt.y.c0));
}
let nobleRejected = 0, nobleBad = 0;
function bad(g, cls, b) {
  const A = decode(groups[g], b);
  nobleBad++;
  if (!A) nobleRejected++;
  if (cls !== 'noncanon' && cls !== 'flags_lenient') check(A === null, `noble accepted its own bad ${cls} G${g}`);
  out.push(`bad ${g} ${cls} ${hex(b)} ${A ? 'noble-accepts' : 'noble-rejects'}`);
}
for (const g of [1, 2]) {
  const G = groups[g];
  const nmul = g === 1 ? 80 : 40, nadd = g === 1 ? 40 : 20, nbad = g === 1 ? 12 : 8;
  for (let i = 0; i < nmul; i++) {
    const k = randScalar();
    const R = G.BASE.multiply(k);
    out.push(`mul ${g} ${k.toString(16).padStart(64, '0')} ${hex(R.toBytes(true))} ${hex(R.toBytes(false))}`);
  }
  for (let i = 0; i < nadd; i++) {
    const A = G.BASE.multiply(randScalar());
    let B = G.BASE.multiply(randScalar());
    if (i % 5 === 1) B = A;
    if (i % 5 === 2) B = A.negate();
    if (i % 5 === 3) B = G.ZERO;
    const S = A.add(B);
    out.push(`add ${g} ${hex(A.toBytes(true))} ${hex(B.toBytes(false))} ${hex(S.toBytes(true))} ${hex(S.toBytes(false))}`);
  }
  out.push(`good ${g} ${hex(G.ZERO.toBytes(true))}`);
  out.push(`good ${g} ${hex(G.ZERO.toBytes(false))}`);
  for (let i = 0; i < nbad; i++) {
    const comp = (i & 1) === 0;
    const A = G.BASE.multiply(randScalar()).toAffine();
    // off the curve: y + 1
    const off = g === 1 ? { x: A.x, y: Fp.add(A.y, 1n) } : { x: A.x, y: Fp2.add(A.y, Fp2.ONE) };
    bad(g, 'offcurve', encRaw(g, off, false));
    // on the curve, outside the subgroup
    const q = curvePoint(g, true);
    bad(g, 'subgroup', encRaw(g, q, comp));
    // compressed x without a root
    bad(g, 'nosqrt', encRaw(g, curvePoint(g, false), true));
    // flags
    const c = G.fromAffine(A).toBytes(true), u = G.fromAffine(A).toBytes(false);
    const f = (b, fn) => { const r = b.slice(); fn(r); return r; };
    bad(g, 'flags', f(c, (r) => { r[0] &= 0x7f; }));
    bad(g, 'flags', f(u, (r) => { r[0] |= 0x80; }));
    bad(g, 'flags', f(u, (r) => { r[0] |= 0x40; }));
    bad(g, 'flags', f(c, (r) => { r[0] |= 0x40; }));
    bad(g, g === 1 ? 'flags_lenient' : 'flags', f(u, (r) => { r[0] |= 0x20; }));
    bad(g, 'flags', f(G.ZERO.toBytes(true), (r) => { r[r.length - 1] = 1; }));
    bad(g, 'flags', f(G.ZERO.toBytes(false), (r) => { r[r.length - 1] = 1; }));
    // non-canonical: first coordinate + p, when it fits under the flag bits
    for (;;) {
      const B = G.BASE.multiply(randScalar());
      const b = B.toBytes(comp);
      const flags = b[0] & 0xe0;
      const head = b.slice(0, 48);
      head[0] &= 0x1f;
      const v = big(head) + P;
      if (v >> 381n) continue;
      const nb = b.slice();
      nb.set(be48(v), 0);
      nb[0] |= flags;
      bad(g, 'noncanon', nb);
      break;
    }
  }
}
writeFileSync(nFile, out.join('\n') + '\n');
console.error(`ec_oracle: checked cuzk's cases ${JSON.stringify(counts)}; noble lenient on ` +
  `${lenient.accepted}/${lenient.total} of cuzk's noncanon/flags_lenient cases (cuzk rejects them)`);
console.error(`ec_oracle: wrote ${out.length} noble cases (${nobleBad} bad, noble rejects ${nobleRejected})`);
console.error(`ec_oracle: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
