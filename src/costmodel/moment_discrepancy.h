// Central moment discrepancy (Zellinger et al., ICLR 2017): a distance between the distributions of
// two sets of embeddings, which CDMPP's regulariser minimises between the embeddings of the training
// programs and those of the programs a model is to predict (an unseen network's, or an unseen
// device's), so that what the decoder learnt applies to them. Private to costmodel/ (libtorch).
#pragma once

#include <torch/torch.h>

namespace tensorperf::costmodel {

// For embeddings a [N, E] and b [M, E]: ||mean(a) - mean(b)|| + sum over k = 2..moments of
// ||C_k(a) - C_k(b)||, where C_k is the per-dimension k-th central moment and || || the Euclidean
// norm over the E dimensions. 0 for identical sets; differentiable. REQUIRES: N, M >= 1, moments >= 1.
torch::Tensor central_moment_discrepancy(const torch::Tensor& a, const torch::Tensor& b, int moments = 5);

}  // namespace tensorperf::costmodel
