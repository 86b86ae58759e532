// An independent SnarkPack prover and checker with @noble/curves (driven by
// tests/snarkpack_noble.test.sh), from the files cuzk writes:
//   SRS     v28-fil-inner-product-v1.srs: g_alpha, g_beta (G1), h_alpha, h_beta (G2),
//           each a BE u32 count and compressed points
//   PROOFS  n x 192 bytes (A, B, C compressed), padded here to a power of two by the last
//   PUBLIC  a row per proof (padded rows included), 32-byte little-endian inputs
//   VK      bellperson .vk
//   AGG     the aggregate cuzk wrote
// Usage: node snarkpack_oracle.mjs SRS VK PROOFS PUBLIC INCLUDE_HEX VERSION AGG
// Recomputes the whole aggregate from the proofs and the SRS (commitments, r, B^r, w^(r^-1),
// ip_ab, agg_c, every GIPA round, the KZG openings) with its own transcript (node's SHA-256)
// and GT compression, and compares it with AGG element by element; then checks the relations a
// verifier checks: TIPP and MIPP on the final values, both KZG openings, and the aggregated
// Groth16 equation from VK and PUBLIC. Exit 0 iff all hold.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const [srsFile, vkFile, proofFile, pubFile, includeHex, versionArg, aggFile] = process.argv.slice(2);
if (!aggFile) {
  console.error('usage: node snarkpack_oracle.mjs SRS VK PROOFS PUBLIC INCLUDE_HEX VERSION AGG');
  process.exit(2);
}
const { Fr, Fp, Fp6, Fp12 } = bls12_381.fields;
const G1 = bls12_381.G1.Point, G2 = bls12_381.G2.Point;
const V2 = versionArg === '2';
let failed = 0;
const check = (ok, what) => { if (!ok) { failed++; console.error(`snarkpack oracle: FAIL: ${what}`); } };

// ---- bytes ----
const le = (x, n) => Buffer.from(x.toString(16).padStart(2 * n, '0'), 'hex').reverse();
const fpLE = (x) => le(x, 48);
const fp6Coeffs = (a) => [a.c0.c0, a.c0.c1, a.c1.c0, a.c1.c1, a.c2.c0, a.c2.c1];
const gtLE = (x) => Buffer.concat([...fp6Coeffs(x.c0), ...fp6Coeffs(x.c1)].map(fpLE));
function gtCompress(x) { // b = (c0 + 1) / c1
  const b = Fp6.mul(Fp6.add(x.c0, Fp6.ONE), Fp6.inv(x.c1));
  return Buffer.concat(fp6Coeffs(b).map(fpLE));
}
const g1b = (P) => Buffer.from(P.toBytes(true));
const g2b = (P) => Buffer.from(P.toBytes(true));
const frLE = (x) => le(x, 32);

function readSrs(b) {
  let off = 0;
  const vec = (sz, from) => {
    const n = b.readUInt32BE(off); off += 4;
    const v = [];
    for (let i = 0; i < n; i++, off += sz) v.push(from(b.subarray(off, off + sz)));
    return v;
  };
  const g1 = (s) => G1.fromBytes(s), g2 = (s) => G2.fromBytes(s);
  return { ga: vec(48, g1), gb: vec(48, g1), ha: vec(96, g2), hb: vec(96, g2) };
}

function readVk(b) {
  let off = 0;
  const g1 = () => G1.fromBytes(b.subarray(off, (off += 96))), g2 = () => G2.fromBytes(b.subarray(off, (off += 192)));
  const vk = { alpha: g1(), betaG1: g1(), beta: g2(), gamma: g2(), deltaG1: g1(), delta: g2(), ic: [] };
  const n = b.readUInt32BE(off); off += 4;
  for (let i = 0; i < n; i++) vk.ic.push(g1());
  return vk;
}

// ---- transcript ----
class Transcript {
  constructor(tag) { this.parts = [Buffer.from('snarkpack-v1' + tag)]; }
  fr(x) { this.parts.push(frLE(x)); return this; }
  g1(P) { this.parts.push(g1b(P)); return this; }
  g2(P) { this.parts.push(g2b(P)); return this; }
  gt(x) { this.parts.push(gtLE(x)); return this; }
  blob(b) { const n = Buffer.alloc(8); n.writeBigUInt64LE(BigInt(b.length)); this.parts.push(n, b); return this; }
  challenge() {
    for (let ctr = 1n; ; ctr++) {
      const c = Buffer.alloc(8); c.writeBigUInt64BE(ctr); this.parts.push(c);
      const d = createHash('sha256').update(Buffer.concat(this.parts)).digest();
      d[31] &= 0x7f;
      const x = BigInt('0x' + Buffer.from(d).reverse().toString('hex'));
      if (x < Fr.ORDER && x !== 0n && x !== 1n) return x;
    }
  }
}
const tsRound = (t, rd) => t.gt(rd.zab_l).gt(rd.zab_r).g1(rd.zc_l).g1(rd.zc_r)
  .gt(rd.ab_l.t).gt(rd.ab_l.u).gt(rd.ab_r.t).gt(rd.ab_r.u).gt(rd.c_l.t).gt(rd.c_l.u).gt(rd.c_r.t).gt(rd.c_r.u);

// ---- algebra ----
const mul = (P, k) => { k = Fr.create(k); return k === 0n ? P.multiply(1n).subtract(P) : P.multiply(k); };
const e = (P, Q) => bls12_381.pairing(P, Q);
const prodE = (Ps, Qs) => Ps.reduce((acc, P, i) => Fp12.mul(acc, e(P, Qs[i])), Fp12.ONE);
const msm = (Ps, ks) => Ps.reduce((acc, P, i) => acc.add(mul(P, ks[i])), Ps[0].subtract(Ps[0]));
const commitPair = (va, vb, wa, wb, A, B) => ({
  t: Fp12.mul(prodE(A, va), prodE(wa, B)), u: Fp12.mul(prodE(A, vb), prodE(wb, B)) });
const commitC = (va, vb, C) => ({ t: prodE(C, va), u: prodE(C, vb) });
const fold = (v, s) => { const h = v.length / 2; return v.slice(0, h).map((x, i) => x.add(mul(v[i + h], s))); };
const powers = (x, n) => { const p = [1n]; for (let i = 1; i < n; i++) p.push(Fr.mul(p[i - 1], x)); return p; };
function evalProduct(t, z, s) { // prod (1 + t_j (s z)^(2^j))
  let pw = Fr.mul(z, s), res = 1n;
  t.forEach((x, j) => { if (j) pw = Fr.sqr(pw); res = Fr.mul(res, Fr.add(1n, Fr.mul(x, pw))); });
  return res;
}
function coeffs(t, s) {
  let c = [1n], pw = s;
  t.forEach((x, j) => { if (j) pw = Fr.sqr(pw); const k = Fr.mul(x, pw); c = c.concat(c.map((y) => Fr.mul(y, k))); });
  return c;
}
function quotient(f, z) { // (f - f(z)) / (X - z)
  const q = new Array(f.length - 1);
  q[f.length - 2] = f[f.length - 1];
  for (let i = f.length - 2; i > 0; i--) q[i - 1] = Fr.add(f[i], Fr.mul(z, q[i]));
  return q;
}

// ---- the prover, as bellperson's aggregate_proofs ----
function aggregate(srs, pfs, include) {
  const n = pfs.length;
  let A = pfs.map((p) => p.A), B = pfs.map((p) => p.B), C = pfs.map((p) => p.C);
  let va = srs.ha.slice(0, n), vb = srs.hb.slice(0, n), wa = srs.ga.slice(n, 2 * n), wb = srs.gb.slice(n, 2 * n);
  const out = { nproofs: n, rounds: [] };
  out.com_ab = commitPair(va, vb, wa, wb, A, B);
  out.com_c = commitC(va, vb, C);
  const hcom = new Transcript('hcom').gt(out.com_ab.t).gt(out.com_ab.u).gt(out.com_c.t).gt(out.com_c.u).challenge();
  const r = new Transcript('random-r').fr(hcom).blob(include).challenge();
  let rv = powers(r, n);
  const ri = powers(Fr.inv(r), n);
  B = B.map((b, i) => mul(b, rv[i]));
  wa = wa.map((w, i) => mul(w, ri[i])), wb = wb.map((w, i) => mul(w, ri[i]));
  out.ip_ab = prodE(A, B);
  out.agg_c = msm(C, rv);
  let cInv = new Transcript('gipa-0').fr(hcom).gt(out.ip_ab).g1(out.agg_c).fr(r).challenge();
  const ch = [], chInv = [];
  for (let i = 0; A.length > 1; i++) {
    const h = A.length / 2, L = (v) => v.slice(0, h), R = (v) => v.slice(h);
    const rd = {
      ab_l: commitPair(L(va), L(vb), R(wa), R(wb), R(A), L(B)), ab_r: commitPair(R(va), R(vb), L(wa), L(wb), L(A), R(B)),
      zab_l: prodE(R(A), L(B)), zab_r: prodE(L(A), R(B)), zc_l: msm(R(C), L(rv)), zc_r: msm(L(C), R(rv)),
      c_l: commitC(L(va), L(vb), R(C)), c_r: commitC(R(va), R(vb), L(C)) };
    if (i > 0 || V2) cInv = tsRound(new Transcript(`gipa-${i}`).fr(cInv), rd).challenge();
    const c = Fr.inv(cInv);
    A = fold(A, c), C = fold(C, c), wa = fold(wa, c), wb = fold(wb, c);
    B = fold(B, cInv), va = fold(va, cInv), vb = fold(vb, cInv);
    rv = L(rv).map((x, j) => Fr.add(x, Fr.mul(rv[j + h], cInv)));
    out.rounds.push(rd), ch.push(c), chInv.push(cInv);
  }
  Object.assign(out, { final_a: A[0], final_b: B[0], final_c: C[0], fv: [va[0], vb[0]], fw: [wa[0], wb[0]] });
  kzg(out, srs, ch, chInv, r);
  return { out, r, ch, chInv };
}

function zChallenge(p, ch) {
  const last = p.rounds[p.rounds.length - 1];
  const extra = tsRound(new Transcript('gipa-extra-link').fr(ch[ch.length - 1]).g1(p.final_a).g2(p.final_b).g1(p.final_c), last).challenge();
  const t = new Transcript('random-z').fr(V2 ? extra : ch[ch.length - 1]).g2(p.fv[0]).g2(p.fv[1]).g1(p.fw[0]).g1(p.fw[1]);
  if (V2) t.g1(p.final_a).g2(p.final_b).g1(p.final_c);
  return t.challenge();
}

function kzg(p, srs, ch, chInv, r) {
  const n = p.nproofs, rev = [...ch].reverse(), revInv = [...chInv].reverse(), z = zChallenge(p, ch);
  const qv = quotient(coeffs(revInv, 1n), z);
  p.vopen = [msm(srs.ha.slice(0, n - 1), qv), msm(srs.hb.slice(0, n - 1), qv)];
  const qw = quotient(new Array(n).fill(0n).concat(coeffs(rev, Fr.inv(r))), z);
  p.wopen = [msm(srs.ga.slice(0, 2 * n - 1), qw), msm(srs.gb.slice(0, 2 * n - 1), qw)];
}

// ---- bytes as AggregateProof::write, element by element ----
function encode(p) {
  const el = [];
  const com = (name, c) => el.push([name + '.T', gtCompress(c.t)], [name + '.U', gtCompress(c.u)]);
  com('com_ab', p.com_ab), com('com_c', p.com_c), el.push(['ip_ab', gtCompress(p.ip_ab)], ['agg_c', g1b(p.agg_c)]);
  const n = Buffer.alloc(4); n.writeUInt32LE(p.nproofs); el.push(['nproofs', n]);
  p.rounds.forEach((rd, i) => { com(`comms_ab[${i}].l`, rd.ab_l), com(`comms_ab[${i}].r`, rd.ab_r); });
  p.rounds.forEach((rd, i) => { com(`comms_c[${i}].l`, rd.c_l), com(`comms_c[${i}].r`, rd.c_r); });
  p.rounds.forEach((rd, i) => el.push([`z_ab[${i}].l`, gtCompress(rd.zab_l)], [`z_ab[${i}].r`, gtCompress(rd.zab_r)]));
  p.rounds.forEach((rd, i) => el.push([`z_c[${i}].l`, g1b(rd.zc_l)], [`z_c[${i}].r`, g1b(rd.zc_r)]));
  el.push(['final_a', g1b(p.final_a)], ['final_b', g2b(p.final_b)], ['final_c', g1b(p.final_c)]);
  el.push(['final_vkey.0', g2b(p.fv[0])], ['final_vkey.1', g2b(p.fv[1])], ['final_wkey.0', g1b(p.fw[0])]);
  el.push(['final_wkey.1', g1b(p.fw[1])], ['vkey_opening.0', g2b(p.vopen[0])], ['vkey_opening.1', g2b(p.vopen[1])]);
  el.push(['wkey_opening.0', g1b(p.wopen[0])], ['wkey_opening.1', g1b(p.wopen[1])]);
  return el;
}

function compare(el, agg) {
  let off = 0;
  for (const [name, b] of el) {
    check(off + b.length <= agg.length && agg.subarray(off, off + b.length).equals(b), `${name} at byte ${off} differs`);
    off += b.length;
  }
  check(off === agg.length, `aggregate is ${agg.length} bytes, the recomputed one ${off}`);
}

// ---- what a verifier checks, on the recomputed values ----
function relations(p, srs, vk, rows, r, ch, chInv) {
  const gtPow = (x, k) => Fp12.pow(x, k);
  let tab = p.com_ab.t, uab = p.com_ab.u, zab = p.ip_ab, tc = p.com_c.t, uc = p.com_c.u, zc = p.agg_c;
  p.rounds.forEach((rd, i) => {
    const f = (acc, l, rr) => Fp12.mul(acc, Fp12.mul(gtPow(l, ch[i]), gtPow(rr, chInv[i])));
    tab = f(tab, rd.ab_l.t, rd.ab_r.t), uab = f(uab, rd.ab_l.u, rd.ab_r.u), zab = f(zab, rd.zab_l, rd.zab_r);
    tc = f(tc, rd.c_l.t, rd.c_r.t), uc = f(uc, rd.c_l.u, rd.c_r.u);
    zc = zc.add(mul(rd.zc_l, ch[i])).add(mul(rd.zc_r, chInv[i]));
  });
  const eq = (a, b) => Fp12.eql(a, b);
  check(eq(e(p.final_a, p.final_b), zab), 'TIPP: e(A, B) != Z_AB');
  check(eq(Fp12.mul(e(p.final_a, p.fv[0]), e(p.fw[0], p.final_b)), tab), 'TIPP: T_AB');
  check(eq(Fp12.mul(e(p.final_a, p.fv[1]), e(p.fw[1], p.final_b)), uab), 'TIPP: U_AB');
  check(eq(e(p.final_c, p.fv[0]), tc) && eq(e(p.final_c, p.fv[1]), uc), 'MIPP: T_C, U_C');
  const revInv = [...chInv].reverse(), rev = [...ch].reverse();
  check(mul(p.final_c, evalProduct(revInv, r, 1n)).equals(zc), 'MIPP: C^r != Z_C');
  const z = zChallenge(p, ch), g = srs.ga[0], h = srs.ha[0], n = p.nproofs;
  const yv = evalProduct(revInv, z, 1n), yw = Fr.mul(evalProduct(rev, z, Fr.inv(r)), Fr.pow(z, BigInt(n)));
  [[srs.ga[1], 0], [srs.gb[1], 1]].forEach(([ga, k]) => check(eq(e(g, p.fv[k].subtract(mul(h, yv))),
    e(ga.subtract(mul(g, z)), p.vopen[k])), `KZG v opening ${k}`));
  [[srs.ha[1], 0], [srs.hb[1], 1]].forEach(([ha, k]) => check(eq(e(p.fw[k].subtract(mul(g, yw)), h),
    e(p.wopen[k], ha.subtract(mul(h, z)))), `KZG w opening ${k}`));
  const rv = powers(r, n), S = rv.reduce((a, x) => Fr.add(a, x), 0n);
  let acc = mul(vk.ic[0], S);
  for (let i = 0; i + 1 < vk.ic.length; i++) acc = acc.add(mul(vk.ic[i + 1], rows.reduce((a, row, j) => Fr.add(a, Fr.mul(row[i], rv[j])), 0n)));
  const rhs = Fp12.mul(Fp12.mul(e(mul(vk.alpha, S), vk.beta), e(acc, vk.gamma)), e(p.agg_c, vk.delta));
  check(eq(p.ip_ab, rhs), 'Groth16: the aggregated equation');
}

const srs = readSrs(readFileSync(srsFile)), vk = readVk(readFileSync(vkFile));
const pb = readFileSync(proofFile), pfs = [];
for (let off = 0; off < pb.length; off += 192)
  pfs.push({ A: G1.fromBytes(pb.subarray(off, off + 48)), B: G2.fromBytes(pb.subarray(off + 48, off + 144)), C: G1.fromBytes(pb.subarray(off + 144, off + 192)) });
let n = 2;
while (n < pfs.length) n *= 2;
while (pfs.length < n) pfs.push(pfs[pfs.length - 1]);
const ni = vk.ic.length - 1, pub = readFileSync(pubFile), rows = [];
for (let j = 0; j < n; j++) rows.push(Array.from({ length: ni }, (_, i) => BigInt('0x' + Buffer.from(pub.subarray(32 * (j * ni + i), 32 * (j * ni + i + 1))).reverse().toString('hex'))));
const { out, r, ch, chInv } = aggregate(srs, pfs, Buffer.from(includeHex, 'hex'));
compare(encode(out), readFileSync(aggFile));
relations(out, srs, vk, rows, r, ch, chInv);
console.log(`snarkpack oracle: ${n} proofs, v${V2 ? 2 : 1}: ${failed ? failed + ' failure(s)' : 'the aggregate recomputed byte for byte; every relation holds'}`);
process.exit(failed ? 1 : 0);
