// How cost models are evaluated (CDMPP's protocol): a random split; cross-model (hold out each
// network in turn, removing from training every workload it shares with the others); cross-device
// (hold out a device, pre-train on the others, fine-tune with a small share of its samples, chosen
// by k-means over the program features or at random, test on the rest of it); cross-CPU (the same,
// with every device of the held-out device's CPU kept out of pre-training).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "costmodel/sample.h"

namespace tensorperf::costmodel {

struct Split {
  std::string name;  // "random", "cross-model resnet18", "cross-device KEY 5% kmeans"
  std::vector<size_t> train, test;  // indices into the samples
  // Cross-device: the held-out device's chosen samples, learned after training on `train`
  // (CostModel::fine_tune). Empty for the other splits.
  std::vector<size_t> fine_tune;
};

// `test_share` of the samples at random (by seed) for testing, the rest for training.
Split random_split(const std::vector<Sample>& samples, double test_share, uint64_t seed);

// One split per network with samples: its workloads' samples are the test set; the training set
// holds no sample of any of its workloads (so a workload it shares with another network is unseen).
std::vector<Split> cross_model_splits(const std::vector<Sample>& samples,
                                      const std::map<std::string, std::set<std::string>>& workloads_of_network);

enum class Selection { kKMeans, kRandom };
const char* selection_name(Selection s);  // "kmeans", "random"

// What a cross-device split keeps out of training: the held-out device alone, or every device of
// its CPU (the same arch and CPU part of the key, split_device_key: its other ISA levels and thread
// counts), so that the model meets the CPU for the first time.
enum class HoldOut { kDevice, kCpu };

// Hold out `device`: train on the samples of every other device (with HoldOut::kCpu, of every other
// CPU), fine-tune with `share` of its own (chosen by `selection`), test on the rest of its samples.
// Named "cross-device KEY 5% kmeans" or "cross-cpu KEY 5% kmeans".
Split cross_device_split(const std::vector<Sample>& samples, const std::string& device, double share,
                         Selection selection, uint64_t seed, HoldOut hold_out = HoldOut::kDevice);

// The CPU a device key names ("x86_64-amd-epyc-f26m2" of "x86_64-amd-epyc-f26m2-avx512-t2").
std::string cpu_of_device(const std::string& device_key);

// k-means (k-means++ seeding, Lloyd iterations) over the rows `rows` of the samples' program
// vectors; returns, for each of the k clusters that got members, the member closest to its centre.
std::vector<size_t> kmeans_representatives(const std::vector<Sample>& samples, const std::vector<size_t>& rows, size_t k,
                                           uint64_t seed);

}  // namespace tensorperf::costmodel
