// snarkjs side of the circom interop tests and benchmark: one node process per
// step, so that the BLS12-381 wasm curve is built once per step, not per file.
//
//   setup SEED POWER OUTDIR NAME...   ptau of 2^POWER (one random contribution,
//       prepared), then per circuit OUTDIR/NAME.r1cs -> NAME.zkey (one random
//       contribution) and NAME.vk.json. POWER "auto" picks the smallest power
//       that fits every circuit (snarkjs's own rule: 2^p > constraints + public).
//   power R1CS...                    prints the smallest power for those circuits
//   inputs SEED DIR                  random inputs (from SEED) for the test
//       circuits in tests/circom: DIR/products.in.json, pubio.in.json, bits.in.json
//   prove DIR NAME...                per circuit NAME.wtns from NAME_js/NAME.wasm
//       and DIR/NAME.in.json, then snarkjs's proof DIR/NAME.snarkjs.proof.json
//       and .public.json
//   vkeq A.json B.json               whether two JSON files hold the same value
//   verify (VK PUBLIC PROOF EXPECT)...  snarkjs groth16 verify on each triple;
//       EXPECT is "ok" or "bad"; fails unless every result is as expected
//   tamper PROOF PUBLIC OUTPREFIX    writes OUTPREFIX.badproof.json (A negated:
//       still a valid point, so only the pairing check can reject it) and
//       OUTPREFIX.badpublic.json (first public signal + 1 mod r)
//   time ZKEY WTNS REPS               min wall time of snarkjs groth16 prove
import * as snarkjs from "snarkjs";
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
const die = (msg) => { console.error("circom_oracle: " + msg); process.exit(1); };
const entropy = (seed, tag) => createHash("sha256").update(seed + ":" + tag).digest("hex");

function r1csPower(file) {
    // header section: n8, prime, nVars, nOut, nPubIn, nPrvIn, nLabels(u64), nConstraints
    const b = readFileSync(file);
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    let pos = 12;
    for (let i = 0; i < v.getUint32(8, true); i++) {
        const type = v.getUint32(pos, true), size = Number(v.getBigUint64(pos + 4, true));
        pos += 12;
        if (type === 1) {
            const n8 = v.getUint32(pos, true), h = pos + 4 + n8;
            const nOut = v.getUint32(h + 4, true), nPubIn = v.getUint32(h + 8, true);
            const nCons = v.getUint32(h + 24, true);
            const rows = nCons + nOut + nPubIn; // + 1 (ONE), and 2^p must exceed rows
            let p = 0;
            while (2 ** p <= rows) p++;
            return p;
        }
        pos += size;
    }
    die(file + ": no header section");
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "power") {
    console.log(Math.max(...args.map(r1csPower)));
} else if (cmd === "setup") {
    const [seed, power0, dir, ...names] = args;
    const power = power0 === "auto" ? Math.max(...names.map((n) => r1csPower(`${dir}/${n}.r1cs`))) : Number(power0);
    const curve = await snarkjs.curves.getCurveFromName("bls12381");
    await snarkjs.powersOfTau.newAccumulator(curve, power, `${dir}/pot0.ptau`);
    await snarkjs.powersOfTau.contribute(`${dir}/pot0.ptau`, `${dir}/pot1.ptau`, "t", entropy(seed, "ptau"));
    await snarkjs.powersOfTau.preparePhase2(`${dir}/pot1.ptau`, `${dir}/pot.ptau`);
    for (const n of names) {
        const r = await snarkjs.zKey.newZKey(`${dir}/${n}.r1cs`, `${dir}/pot.ptau`, `${dir}/${n}.0.zkey`);
        if (r === -1) die(`${n}: zkey setup failed (ptau too small?)`);
        await snarkjs.zKey.contribute(`${dir}/${n}.0.zkey`, `${dir}/${n}.zkey`, "t", entropy(seed, n));
        const vk = await snarkjs.zKey.exportVerificationKey(`${dir}/${n}.zkey`);
        writeFileSync(`${dir}/${n}.vk.json`, JSON.stringify(vk, null, 1));
    }
    console.log(`circom_oracle: ptau power ${power}, ${names.length} zkeys`);
} else if (cmd === "inputs") {
    const [seed, dir] = args;
    let ctr = 0;
    const rnd = (bits) => BigInt("0x" + entropy(seed, "in" + ctr++)) % (1n << BigInt(bits));
    const dec = (bits) => rnd(bits).toString();
    const write = (n, v) => writeFileSync(`${dir}/${n}.in.json`, JSON.stringify(v));
    write("products", { a: (rnd(253) + 2n).toString(), b: dec(253) });
    write("pubio", { u: [dec(253), dec(253), dec(253)], v: [dec(253), dec(253)] });
    write("bits", { x: dec(64), y: dec(64), k: dec(253) });
} else if (cmd === "prove") {
    const [dir, ...names] = args;
    for (const n of names) {
        await snarkjs.wtns.calculate(JSON.parse(readFileSync(`${dir}/${n}.in.json`, "utf8")),
                                     `${dir}/${n}_js/${n}.wasm`, `${dir}/${n}.wtns`);
        const { proof, publicSignals } = await snarkjs.groth16.prove(`${dir}/${n}.zkey`, `${dir}/${n}.wtns`);
        writeFileSync(`${dir}/${n}.snarkjs.proof.json`, JSON.stringify(proof, null, 1));
        writeFileSync(`${dir}/${n}.snarkjs.public.json`, JSON.stringify(publicSignals, null, 1));
    }
} else if (cmd === "vkeq") {
    const { isDeepStrictEqual } = await import("node:util");
    const [a, b] = args.map((f) => JSON.parse(readFileSync(f, "utf8")));
    if (!isDeepStrictEqual(a, b)) {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
            if (!isDeepStrictEqual(a[k], b[k])) console.error(`circom_oracle: "${k}" differs`);
        die(`${args[0]} and ${args[1]} differ`);
    }
} else if (cmd === "verify") {
    if (args.length % 4) die("verify: triples of VK PUBLIC PROOF EXPECT");
    let bad = 0;
    for (let i = 0; i < args.length; i += 4) {
        const [vk, pub, proof, expect] = args.slice(i, i + 4);
        const read = (f) => JSON.parse(readFileSync(f, "utf8"));
        let ok;
        try {
            ok = await snarkjs.groth16.verify(read(vk), read(pub), read(proof));
        } catch (e) {
            ok = false;
        }
        const good = ok === (expect === "ok");
        console.log(`snarkjs verify ${proof} ${pub}: ${ok ? "valid" : "rejected"} (${good ? "as expected" : "WRONG"})`);
        if (!good) bad++;
    }
    if (bad) die(`${bad} snarkjs verification(s) not as expected`);
} else if (cmd === "tamper") {
    const [proofFile, pubFile, out] = args;
    const proof = JSON.parse(readFileSync(proofFile, "utf8"));
    proof.pi_a[1] = ((P - BigInt(proof.pi_a[1])) % P).toString();
    writeFileSync(`${out}.badproof.json`, JSON.stringify(proof, null, 1));
    const pub = JSON.parse(readFileSync(pubFile, "utf8"));
    if (!pub.length) die("tamper: no public signals");
    pub[0] = ((BigInt(pub[0]) + 1n) % R).toString();
    writeFileSync(`${out}.badpublic.json`, JSON.stringify(pub, null, 1));
} else if (cmd === "time") {
    const [zkey, wtns, reps] = args;
    let best = Infinity;
    for (let i = 0; i < Number(reps || 1); i++) {
        const t = performance.now();
        await snarkjs.groth16.prove(zkey, wtns);
        best = Math.min(best, performance.now() - t);
    }
    console.log((best / 1000).toFixed(3));
} else {
    die("usage: circom_oracle.mjs setup|power|inputs|prove|vkeq|verify|tamper|time ...");
}
process.exit(0);
