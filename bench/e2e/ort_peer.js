// ONNX Runtime peer of e2e_bench.py: loads one ONNX file (all graph optimisations on) and, for each
// line "N" on stdin, runs it N times and prints the median run in ms.
//   node ort_peer.js MODULE_DIR ONNX_FILE BATCH THREADS [INTER_OP_THREADS]
// With INTER_OP_THREADS (> 1), ONNX Runtime's parallel executor runs independent nodes at once on
// that many inter-op threads (THREADS intra-op each); without it, the sequential executor.
const path = require('path');
const readline = require('readline');
const ort = require(path.join(process.argv[2], 'node_modules', 'onnxruntime-node'));

async function main() {
  const [file, batch, threads] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
  const inter = process.argv.length > 6 ? Number(process.argv[6]) : 1;
  const session = await ort.InferenceSession.create(file, {
    graphOptimizationLevel: 'all', intraOpNumThreads: threads, interOpNumThreads: inter,
    executionMode: inter > 1 ? 'parallel' : 'sequential',
  });
  const name = session.inputNames[0];
  const meta = session.inputMetadata ? session.inputMetadata[0] : null;
  let dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' ? d : batch)) : [batch, 3, 224, 224];
  dims[0] = batch;
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
  const feeds = { [name]: new ort.Tensor('float32', data, dims) };
  await session.run(feeds);  // warm-up
  process.stdout.write('ready ' + ort.env.versions.common + '\n');
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const times = [];
    for (let i = 0; i < Math.max(1, Number(line)); ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(times[Math.floor(times.length / 2)].toFixed(4) + '\n');
  }
}
main().catch((e) => { process.stderr.write('ort_peer: ' + e.message + '\n'); process.exit(1); });
