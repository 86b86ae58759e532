// Independent Groth16 verification with @noble/curves (driven by
// tests/groth16_noble.test.sh), from the files cuzk writes:
//   VK      bellperson .vk: alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2),
//           delta_g1 (G1), delta_g2 (G2) uncompressed, BE u32 count, count x G1 (ic)
//   PROOFS  n x 192 bytes: A (G1) || B (G2) || C (G1), compressed
//   PUBLIC  n rows of (count - 1) inputs, 32-byte little-endian
// Usage:
//   node groth16_oracle.mjs check  VK PROOFS PUBLIC  exit 0 iff every proof verifies
//   node groth16_oracle.mjs tamper VK PROOFS PUBLIC  exit 0 iff every proof verifies
//        and every tampered variant (points moved, inputs changed, proofs and
//        inputs mismatched) is rejected
// Verification is the textbook equation, one pairing per term:
//   e(A, B) == e(alpha, beta) * e(acc, gamma) * e(C, delta),
//   acc = ic[0] + sum x_i * ic[i+1].
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const [mode, vkFile, proofFile, pubFile] = process.argv.slice(2);
if (!pubFile || !['check', 'tamper'].includes(mode)) {
  console.error('usage: node groth16_oracle.mjs check|tamper VK PROOFS PUBLIC');
  process.exit(2);
}
const { Fr, Fp12 } = bls12_381.fields;
const G1 = bls12_381.G1.Point, G2 = bls12_381.G2.Point;

function parseVk(b) {
  let off = 0;
  const take = (n) => {
    if (off + n > b.length) throw new Error(`vk: truncated at byte ${off}`);
    const s = b.subarray(off, off + n);
    off += n;
    return s;
  };
  const g1 = () => G1.fromBytes(take(96)), g2 = () => G2.fromBytes(take(192));
  const vk = { alpha: g1(), betaG1: g1(), beta: g2(), gamma: g2(), deltaG1: g1(), delta: g2() };
  const n = take(4).readUInt32BE(0);
  vk.ic = [];
  for (let i = 0; i < n; i++) vk.ic.push(g1());
  return vk;
}

// Little-endian 32 bytes to a scalar (must be < r, as cuzk writes them).
function leScalar(b) {
  const x = BigInt('0x' + Buffer.from(b).reverse().toString('hex'));
  if (x >= Fr.ORDER) throw new Error('public input >= r');
  return x;
}

function decodeProof(b) {
  return { A: G1.fromBytes(b.subarray(0, 48)), B: G2.fromBytes(b.subarray(48, 144)), C: G1.fromBytes(b.subarray(144, 192)) };
}

const mulG1 = (P, k) => (k === 0n ? G1.ZERO : P.multiply(k));

function verify(vk, pf, xs) {
  if (xs.length !== vk.ic.length - 1) throw new Error(`${xs.length} inputs, vk expects ${vk.ic.length - 1}`);
  let acc = vk.ic[0];
  xs.forEach((x, i) => { acc = acc.add(mulG1(vk.ic[i + 1], x)); });
  const e = (P, Q) => (P.is0() || Q.is0() ? Fp12.ONE : bls12_381.pairing(P, Q));
  const lhs = e(pf.A, pf.B);
  const rhs = Fp12.mul(Fp12.mul(e(vk.alpha, vk.beta), e(acc, vk.gamma)), e(pf.C, vk.delta));
  return Fp12.eql(lhs, rhs);
}

const vk = parseVk(readFileSync(vkFile));
const nIn = vk.ic.length - 1;
const pbytes = readFileSync(proofFile), ubytes = readFileSync(pubFile);
if (pbytes.length === 0 || pbytes.length % 192) {
  console.error(`groth16_oracle: ${pbytes.length} proof bytes is not a multiple of 192`);
  process.exit(1);
}
const n = pbytes.length / 192;
if (ubytes.length !== n * nIn * 32) {
  console.error(`groth16_oracle: ${ubytes.length} public-input bytes, expected ${n * nIn * 32}`);
  process.exit(1);
}
const xs = [];
for (let i = 0; i < n; i++) {
  const row = [];
  for (let k = 0; k < nIn; k++) row.push(leScalar(ubytes.subarray((i * nIn + k) * 32, (i * nIn + k + 1) * 32)));
  xs.push(row);
}

let bad = 0;
const proofs = [];
for (let i = 0; i < n; i++) {
  let ok = false;
  try {
    proofs.push(decodeProof(pbytes.subarray(i * 192, (i + 1) * 192)));
    ok = verify(vk, proofs[i], xs[i]);
    console.log(`groth16_oracle: proof ${i}: ${ok ? 'OK' : 'does not verify'}`);
  } catch (err) {
    console.log(`groth16_oracle: proof ${i}: rejected (${err.message})`);
  }
  if (!ok) bad++;
}
if (mode === 'check' || bad) {
  console.log(bad ? `groth16_oracle: ${bad} of ${n} proofs rejected` : `groth16_oracle: all ${n} proofs verify`);
  process.exit(bad ? 1 : 0);
}

// tamper: every variant must be rejected.
let accepted = 0, tried = 0;
function expectReject(what, pf, x) {
  tried++;
  let ok;
  try { ok = verify(vk, pf, x); } catch (err) { ok = false; }
  if (ok) { accepted++; console.error(`groth16_oracle: FAIL: tampered proof accepted: ${what}`); }
}
// Every kind of change on proof 0; the others are checked against their
// neighbours' inputs (each verification is four pairings in JavaScript).
for (let i = 0; i < n; i++) {
  const p = proofs[i];
  if (n > 1) expectReject(`proof ${i} with the inputs of proof ${(i + 1) % n}`, p, xs[(i + 1) % n]);
  if (i > 0) continue;
  expectReject(`proof ${i}: A + G1`, { ...p, A: p.A.add(G1.BASE) }, xs[i]);
  expectReject(`proof ${i}: -A`, { ...p, A: p.A.negate() }, xs[i]);
  expectReject(`proof ${i}: B + G2`, { ...p, B: p.B.add(G2.BASE) }, xs[i]);
  expectReject(`proof ${i}: C + G1`, { ...p, C: p.C.add(G1.BASE) }, xs[i]);
  expectReject(`proof ${i}: A and C swapped`, { ...p, A: p.C, C: p.A }, xs[i]);
  for (let k = 0; k < nIn; k++) {
    const y = xs[i].slice();
    y[k] = Fr.add(y[k], 1n);
    expectReject(`proof ${i}: input ${k} + 1`, p, y);
  }
}
console.log(`groth16_oracle: ${n} proofs verify, ${tried - accepted} of ${tried} tampered variants rejected`);
process.exit(accepted ? 1 : 0);
