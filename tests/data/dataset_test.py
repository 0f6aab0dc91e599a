#!/usr/bin/env python3
"""The committed measurement dataset (data/measurements/) and the scripts that make it.

Checks what the dataset promises its users and what its README says of it:
  - the noise-pair count of scripts/dataset_readme.py (pairs are per device and host clock, at least a
    minute apart, error-free records only), on hand-made records;
  - the fault test of scripts/drop_faulty_records.py, on hand-made records;
  - the native top-up's choice (scripts/native_costs_missing.py): the programs the device lacks natively
    timed, the faster of two passes, only what a run chose when given;
  - the keys of scripts/synthetic_workloads.py (every set): distinct, fixed by the seed, each kind in its
    share, never a zoo model's task, a kind's keys the set's own of it, and every one taken by tensorperf;
  - the committed files: at least 40,000 records on at least 6 devices, each device with its description,
    every zoo model's workloads (batch 1 and the batch-8 set) on at least 4 devices, at least 2% of the
    records configs measured twice, no record of a known fault, and the README's headline count true.

Usage: tests/data/dataset_test.py --tensorperf build/tensorperf
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "data", "measurements")
TENSORPERF = None


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


readme = load_script("dataset_readme")
faults = load_script("drop_faulty_records")
synthetic = load_script("synthetic_workloads")
native = load_script("native_costs_missing")


def record(device, workload, config, cost, timestamp, provider="halide", error_no=0):
    return {"config": config,
            "input": {"device": device, "provider": provider, "target": "x86-64-linux", "workload": workload},
            "result": {"costs": [cost, cost, cost] if error_no == 0 else [], "error_no": error_no, "error_msg": "",
                       "timestamp": timestamp, "build_time": 0.1, "run_time": 0.2, "load": 1.0}}


class NoisePairs(unittest.TestCase):
    def test_a_config_measured_twice_a_minute_apart_is_one_pair(self):
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), record("d-t2", "w", {"x": 1}, 1.5, 1061.0)]
        self.assertEqual(readme.noise_pairs(rs), [0.5])

    def test_the_same_config_on_two_devices_is_no_pair(self):
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), record("d-t1", "w", {"x": 1}, 2.0, 2000.0)]
        self.assertEqual(readme.noise_pairs(rs), [])

    def test_measurements_seconds_apart_are_no_pair(self):
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), record("d-t2", "w", {"x": 1}, 1.0, 1030.0)]
        self.assertEqual(readme.noise_pairs(rs), [])

    def test_other_configs_providers_and_errors_are_no_pairs(self):
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), record("d-t2", "w", {"x": 2}, 1.0, 2000.0),
              record("d-t2", "w", {"x": 1}, 1.0, 3000.0, provider="onednn"),
              record("d-t2", "w", {"x": 1}, 1.0, 4000.0, error_no=4)]
        self.assertEqual(readme.noise_pairs(rs), [])

    def test_measurements_of_two_hosts_of_one_device_key_are_no_pair(self):
        other_host = record("d-t2", "w", {"x": 1}, 0.8, 2000.0)
        other_host["result"]["clock_mhz"] = 2596.1
        same_host = record("d-t2", "w", {"x": 1}, 0.9, 3000.0)
        same_host["result"]["clock_mhz"] = 2598.0
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), other_host]  # no clock kept: the dataset's first host
        self.assertEqual(readme.noise_pairs(rs), [])
        pairs = readme.noise_pairs(rs + [same_host])
        self.assertEqual(len(pairs), 1)
        self.assertAlmostEqual(pairs[0], 0.125)

    def test_three_measurements_are_one_pair_of_the_first_and_last(self):
        rs = [record("d-t2", "w", {"x": 1}, 1.0, 1000.0), record("d-t2", "w", {"x": 1}, 4.0, 1100.0),
              record("d-t2", "w", {"x": 1}, 2.0, 1200.0)]
        self.assertEqual(readme.noise_pairs(rs), [1.0])


class RepeatedModels(unittest.TestCase):
    def test_a_model_counts_as_repeated_once_half_its_workloads_have_a_pair_on_that_device(self):
        workloads_of = {"a b1": {"w1", "w2"}, "b b1": {"w3", "w4", "w5"}, "c b1": {"w6"}}
        twice = lambda dev, w: [record(dev, w, {}, 1.0, 1000.0), record(dev, w, {}, 1.0, 1100.0)]
        rs = twice("d-t2", "w1") + twice("d-t2", "w3") + twice("other-t2", "w6")  # w6 paired elsewhere only
        rs += [record("d-t2", "w6", {}, 1.0, 1000.0)]
        self.assertEqual(readme.repeated_models([r for r in rs if r["input"]["device"] == "d-t2"], workloads_of),
                         ["a b1"])


class FaultyRecords(unittest.TestCase):
    def test_a_one_thread_onednn_record_seconds_after_its_two_thread_twin_before_the_fix_is_dropped(self):
        before = faults.FIX_ONEDNN_THREADS - 3600
        t2 = [record("c-avx2-t2", "w", {"a": 1}, 1.0, before, provider="onednn")]
        t1 = [record("c-avx2-t1", "w", {"a": 1}, 9.0, before + 5, provider="onednn"),      # the fault
              record("c-avx2-t1", "w", {"a": 1}, 1.5, before + 600, provider="onednn"),    # later: a measurement
              record("c-avx2-t1", "w", {"a": 2}, 9.0, before + 5, provider="onednn"),      # no twin
              record("c-avx2-t1", "w", {"a": 1}, 9.0, before + 5, provider="halide"),      # not oneDNN
              record("c-avx2-t1", "w", {"a": 1}, 9.0, faults.FIX_ONEDNN_THREADS + 5, provider="onednn")]
        lines = {"c-avx2-t2": [json.dumps(r) for r in t2]}
        self.assertEqual(faults.onednn_t1_also_threads("c-avx2-t1", t1, lambda d: lines[d]), [0])
        self.assertEqual(faults.onednn_t1_also_threads("c-avx2-t2", t2, lambda d: lines[d]), [])

    def test_a_record_whose_repeats_spread_over_tenfold_is_dropped(self):
        def timed(costs, error_no=0):
            r = record("c-avx2-t2", "w", {"a": 1}, sum(costs) / len(costs), 1000.0)
            r["result"]["costs"], r["result"]["error_no"] = costs, error_no
            return r
        rs = [timed([0.0103, 0.000359, 0.000272]),  # the fault: a stalled first repeat
              timed([0.0239, 0.0202, 0.000128]),    # two stalled repeats
              timed([0.0010, 0.0012, 0.0011]),      # a measurement
              timed([0.0050, 0.0006]),              # 8.3x: within the ratio
              timed([0.0103, 0.000359], error_no=4),  # an error: no cost to learn
              timed([0.0103])]                      # one repeat: nothing to compare
        self.assertEqual(faults.stalled_repeat("c-avx2-t2", rs, None), [0, 1])


class NativeCostsMissing(unittest.TestCase):
    @staticmethod
    def natively(config, native_costs, device="c-avx2-t2", error_no=0):
        r = record(device, "w", config, 1.0, 1000.0, provider="onednn", error_no=error_no)
        if native_costs:
            r["result"]["native_costs"] = native_costs
        return json.dumps(r)

    def test_of_a_program_timed_in_two_passes_the_faster_is_kept(self):
        first = [self.natively({"a": 1}, [0.9, 1.0, 1.1]), self.natively({"a": 2}, [0.5, 0.5, 0.5])]
        second = [self.natively({"a": 1}, [0.6, 0.7, 0.8]), self.natively({"a": 2}, [0.7, 0.7, 0.7])]
        got = [json.loads(line) for line in native.missing([], [first, second])]
        self.assertEqual([(r["config"], r["result"]["native_costs"]) for r in got],
                         [({"a": 1}, [0.6, 0.7, 0.8]), ({"a": 2}, [0.5, 0.5, 0.5])])

    def test_a_program_the_device_already_times_natively_or_timed_without_them_is_not_printed(self):
        have = [self.natively({"a": 1}, [1.0]), self.natively({"a": 2}, None),
                self.natively({"a": 3}, [1.0], device="other-t2"), self.natively({"a": 4}, None)]
        new = [self.natively({"a": 1}, [0.1]), self.natively({"a": 2}, [0.2]), self.natively({"a": 3}, [0.3]),
               self.natively({"a": 4}, None), self.natively({"a": 5}, [0.5], error_no=4)]
        got = [json.loads(line)["config"] for line in native.missing(have, [new])]
        self.assertEqual(got, [{"a": 2}, {"a": 3}])

    def test_a_program_the_device_never_measured_is_printed_even_without_native_costs(self):
        def plain(config, cost, error_no=0):
            r = record("c-avx2-t2", "w", config, cost, 1000.0, provider="onednn", error_no=error_no)
            r["result"]["costs"] = [cost] * 3
            return json.dumps(r)
        have = [self.natively({"a": 1}, None)]
        first = [plain({"a": 1}, 0.1), plain({"a": 2}, 0.4), plain({"a": 3}, 0.3), self.natively({"a": 4}, [0.9]),
                 plain({"a": 5}, 0.1, error_no=4)]
        second = [plain({"a": 2}, 0.2), plain({"a": 3}, 0.6), plain({"a": 4}, 0.1), plain({"a": 5}, 0.5)]
        got = [json.loads(line) for line in native.missing(have, [first, second])]
        # a1: measured already; a2, a3: the faster pass; a4: the native timing over a faster plain one;
        # a5: the pass without an error.
        self.assertEqual([(r["config"], r["result"]["costs"][0], "native_costs" in r["result"]) for r in got],
                         [({"a": 2}, 0.2, False), ({"a": 3}, 0.3, False), ({"a": 4}, 1.0, True),
                          ({"a": 5}, 0.5, False)])

    def test_with_a_run_s_choices_only_the_programs_it_ran_are_printed(self):
        run = {"ops": [{"workload": "w", "provider": "onednn", "config": {"a": 2}},
                       {"workload": "w", "provider": "halide", "config": {"a": 3}},  # another provider
                       {"workload": "", "provider": "layout", "config": {}}]}        # a layout copy
        new = [self.natively({"a": 1}, [0.1]), self.natively({"a": 2}, [0.2]), self.natively({"a": 3}, [0.3])]
        got = [json.loads(line)["config"] for line in native.missing([], [new], native.chosen_programs(run))]
        self.assertEqual(got, [{"a": 2}])


class SyntheticWorkloads(unittest.TestCase):
    def test_the_keys_are_distinct_and_a_function_of_the_seed(self):
        a = synthetic.synthetic_keys(60, 3, set())
        self.assertEqual(len(a), 60)
        self.assertEqual(len(set(a)), 60)
        self.assertEqual(a, synthetic.synthetic_keys(60, 3, set()))
        self.assertNotEqual(a, synthetic.synthetic_keys(60, 4, set()))

    def test_every_kind_is_drawn_in_its_share(self):
        keys = synthetic.synthetic_keys(200, 1, set())
        kinds = [k.split("|")[0] for k in keys]
        depthwise = [k for k in keys if k.startswith("conv2d") and "groups=1;" not in k]
        self.assertEqual(len(depthwise), 60)  # 30%
        for op in ("max_pool2d", "avg_pool2d", "global_avg_pool2d", "relu", "add", "mul", "batch_norm", "layer_norm",
                   "softmax"):
            self.assertIn(op, kinds)

    def test_a_zoo_key_is_never_emitted(self):
        first = synthetic.synthetic_keys(40, 2, set())
        again = synthetic.synthetic_keys(40, 2, {first[5], first[17]})
        self.assertEqual(len(again), 40)
        self.assertNotIn(first[5], again)
        self.assertNotIn(first[17], again)
        zoo = synthetic.zoo_keys(TENSORPERF)
        self.assertGreater(len(zoo), 300)
        self.assertFalse(zoo & set(synthetic.synthetic_keys(240, 1, zoo)))

    def test_the_matmul_set_draws_matrix_products_apart_from_the_memory_set(self):
        memory = synthetic.synthetic_keys(60, 1, set())
        matmul = synthetic.synthetic_keys(40, 1, set(), "matmul")
        self.assertEqual(len(set(matmul)), 40)
        self.assertEqual(memory, synthetic.synthetic_keys(60, 1, set(), "memory"))  # the default set
        ops = [k.split("|")[0] for k in matmul]
        self.assertEqual(set(ops), {"dense", "batch_matmul"})
        self.assertEqual(ops.count("dense"), 22)  # 55%
        self.assertFalse(set(matmul) & set(memory))
        for key in matmul:
            if key.startswith("dense|"):  # [N, T, K] x [O, K], at most 2 GFLOP
                n, t, k = (int(d) for d in key.split("[")[1].split("]")[0].split(","))
                o = int(key.split("[")[2].split(",")[0])
                self.assertLessEqual(2 * n * t * k * o, 2e9, key)
        zoo = synthetic.zoo_keys(TENSORPERF)
        self.assertFalse(zoo & set(synthetic.synthetic_keys(48, 1, zoo, "matmul")))

    def test_the_fc_set_draws_fully_connected_layers_of_at_most_512_mib(self):
        fc = synthetic.synthetic_keys(24, 1, set(), "fc")
        self.assertEqual(len(set(fc)), 24)
        self.assertFalse(set(fc) & set(synthetic.synthetic_keys(48, 1, set(), "matmul")))
        for key in fc:
            self.assertTrue(key.startswith("dense|float32["), key)
            n, k = (int(d) for d in key.split("[")[1].split("]")[0].split(","))
            o = int(key.split("[")[2].split(",")[0])
            self.assertIn(n, (1, 8))
            self.assertLessEqual(k * o * 4, 512 << 20, key)

    def test_one_kind_s_keys_are_the_set_s_own_keys_of_that_kind_in_order(self):
        memory = synthetic.synthetic_keys(120, 1, set())
        depthwise = synthetic.synthetic_keys(120, 1, set(), "memory", "depthwise")
        self.assertEqual(len(depthwise), 36)  # 30%
        self.assertEqual(depthwise, [k for k in memory if k.startswith("conv2d") and "groups=1;" not in k])
        self.assertEqual(synthetic.synthetic_keys(48, 1, set(), "matmul", "depthwise"), [])
        pools = synthetic.synthetic_keys(120, 1, set(), "memory", "max_pool")
        self.assertTrue(pools and all(k.startswith("max_pool2d|") for k in pools))

    def test_tensorperf_takes_every_key(self):
        keys = synthetic.synthetic_keys(40, 1, set())
        keys += synthetic.synthetic_keys(12, 1, set(), "matmul") + synthetic.synthetic_keys(6, 1, set(), "fc")
        for key in keys:
            r = subprocess.run([TENSORPERF, "features", "--workload", key, "--json"], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(r.returncode, 0, f"{key}: {r.stderr.strip()}")
            self.assertTrue(json.loads(r.stdout)["pooled"], key)


class CommittedDataset(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.devices = {}
        for path in sorted(glob.glob(os.path.join(DATA, "*.jsonl.zst"))):
            key = os.path.basename(path)[: -len(".jsonl.zst")]
            cls.devices[key] = readme.read_records(path)
        cls.total = sum(len(rs) for rs in cls.devices.values())

    def test_at_least_40000_records_on_at_least_6_devices_each_with_its_description(self):
        self.assertGreaterEqual(self.total, 40000)
        self.assertGreaterEqual(len(self.devices), 6)
        for key, rs in self.devices.items():
            desc = json.load(open(os.path.join(DATA, f"device-{key}.json")))
            self.assertGreater(desc["peak_gflops"], 0, key)
            self.assertTrue(all(r["input"]["device"] == key for r in rs), f"{key}.jsonl.zst holds another device")

    def test_every_model_has_all_its_workloads_on_at_least_4_devices(self):
        workloads = {key: {r["input"]["workload"] for r in rs} for key, rs in self.devices.items()}
        for model, keys in readme.model_workloads(TENSORPERF).items():
            covered = [d for d, ws in workloads.items() if keys <= ws]
            self.assertGreaterEqual(len(covered), 4, f"{model}: every workload on only {covered}")

    def test_at_least_2_percent_of_the_records_are_configs_measured_twice(self):
        pairs = sum(len(readme.noise_pairs(rs)) for rs in self.devices.values())
        self.assertGreaterEqual(pairs * 50, self.total, f"{pairs} pairs in {self.total} records")

    def test_no_record_of_a_known_fault_is_left(self):
        lines = {key: [json.dumps(r) for r in rs] for key, rs in self.devices.items()}

        def lines_of(device):
            if device not in lines:
                raise FileNotFoundError(device)
            return lines[device]

        for key, rs in self.devices.items():
            for name, test in faults.FAULTS:
                self.assertEqual(test(key, rs, lines_of), [], f"{key}: records of {name}")

    def test_the_readme_states_the_records_and_devices_there_are(self):
        text = open(os.path.join(DATA, "README.md")).read()
        m = re.search(r"\*\*(\d+) records on (\d+) devices\.\*\*", text)
        self.assertIsNotNone(m, "the README has no '**N records on D devices.**' line")
        self.assertEqual((int(m.group(1)), int(m.group(2))), (self.total, len(self.devices)))
        for key, rs in self.devices.items():
            self.assertIn(f"| `{key}` |", text)

    def test_the_store_imports_every_record(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "dataset.db")
            subprocess.run([TENSORPERF, "db", "import", "--db", db] + sorted(glob.glob(os.path.join(DATA, "*.zst"))),
                           check=True, capture_output=True)
            stats = json.loads(subprocess.check_output([TENSORPERF, "db", "stats", "--db", db, "--json"]))
            self.assertEqual((stats["records"], stats["devices"]), (self.total, len(self.devices)))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorperf", required=True)
    args, rest = ap.parse_known_args()
    TENSORPERF = args.tensorperf
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
