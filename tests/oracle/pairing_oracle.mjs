// Pairing cross-check against @noble/curves (driven by tests/pairing_noble.test.sh).
//   node pairing_oracle.mjs SEED CUZK_CASES NOBLE_CASES
// 1. recomputes every pairing cuzk wrote (tests/tool_pairing_oracle.c gen) with
//    noble and compares Fp12.toBytes byte for byte; "tampered" lines must differ;
// 2. writes its own random cases (seeded by SEED) for cuzk to check.
// Line formats are described in tests/tool_pairing_oracle.c.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const [seed, cFile, nFile] = process.argv.slice(2);
if (!nFile) {
  console.error('usage: node pairing_oracle.mjs SEED CUZK_CASES NOBLE_CASES');
  process.exit(2);
}
const { Fr, Fp12 } = bls12_381.fields;
const G1 = bls12_381.G1.Point, G2 = bls12_381.G2.Point;

let ctr = 0;
function randBig(bytes) {
  let h = Buffer.alloc(0);
  while (h.length < bytes) h = Buffer.concat([h, createHash('sha256').update(`pairing:${seed}:${ctr++}`).digest()]);
  return BigInt('0x' + h.subarray(0, bytes).toString('hex'));
}
const randScalar = () => (randBig(40) % (Fr.ORDER - 1n)) + 1n;
const hex = (b) => Buffer.from(b).toString('hex');
const sc = (s) => BigInt('0x' + s);
const sc32 = (k) => k.toString(16).padStart(64, '0');
const gt = (a, b) => hex(Fp12.toBytes(bls12_381.pairing(G1.BASE.multiply(a), G2.BASE.multiply(b))));

let passed = 0, failed = 0;
function check(cond, msg) {
  if (cond) passed++;
  else { failed++; if (failed <= 20) console.error('pairing_oracle: FAIL: ' + msg); }
}

// ---- 1. check cuzk's cases -------------------------------------------------
const counts = { pair: 0, multi: 0, tampered: 0 };
for (const line of readFileSync(cFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const t = line.trim().split(/\s+/);
  if (t[0] === 'pair' && t.length === 6) {
    const a = sc(t[1]), b = sc(t[2]);
    const P = G1.BASE.multiply(a), Q = G2.BASE.multiply(b);
    check(hex(P.toBytes(true)) === t[3], `G1 point a=${t[1]}`);
    check(hex(Q.toBytes(true)) === t[4], `G2 point b=${t[2]}`);
    check(hex(Fp12.toBytes(bls12_381.pairing(P, Q))) === t[5], `pairing a=${t[1]} b=${t[2]}`);
  } else if (t[0] === 'multi' && t.length === 6) {
    const k = t.slice(1, 5).map(sc);
    const e = bls12_381.pairingBatch([
      { g1: G1.BASE.multiply(k[0]), g2: G2.BASE.multiply(k[1]) },
      { g1: G1.BASE.multiply(k[2]), g2: G2.BASE.multiply(k[3]) },
    ]);
    check(hex(Fp12.toBytes(e)) === t[5], `multi-pairing ${t.slice(1, 5).join(' ')}`);
  } else if (t[0] === 'tampered' && t.length === 4) {
    check(gt(sc(t[1]), sc(t[2])) !== t[3], `tampered case matched noble a=${t[1]} b=${t[2]}`);
  } else {
    check(false, `malformed line: ${line.slice(0, 40)}`);
    continue;
  }
  counts[t[0]]++;
}
check(counts.pair >= 5 && counts.multi >= 1 && counts.tampered >= 1, `too few cases ${JSON.stringify(counts)}`);

// ---- 2. noble's own cases for cuzk -----------------------------------------
const out = [];
for (let i = 0; i < 6; i++) {
  const a = randScalar(), b = randScalar();
  out.push(`pair ${sc32(a)} ${sc32(b)} ${gt(a, b)}`);
}
{
  const k = [randScalar(), randScalar(), randScalar(), randScalar()];
  const e = bls12_381.pairingBatch([
    { g1: G1.BASE.multiply(k[0]), g2: G2.BASE.multiply(k[1]) },
    { g1: G1.BASE.multiply(k[2]), g2: G2.BASE.multiply(k[3]) },
  ]);
  out.push(`multi ${k.map(sc32).join(' ')} ${hex(Fp12.toBytes(e))}`);
}
{
  // e(a·g1, (b+1)·g2) labelled (a, b): cuzk must report a mismatch
  const a = randScalar(), b = randScalar();
  out.push(`tampered ${sc32(a)} ${sc32(b)} ${gt(a, (b + 1n) % Fr.ORDER || 1n)}`);
}
writeFileSync(nFile, out.join('\n') + '\n');

console.error(`pairing_oracle: cuzk cases ${JSON.stringify(counts)}; ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
