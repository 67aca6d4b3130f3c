// Non-negative minimiser of a sparse convex quadratic, 1/2 x^T H x - c^T x subject to x >= 0,
// for the cost model fitted at the recording's own resolution: there H = A^T A + penalty is
// banded along the sequence (each range touches a few bins), with as many unknowns as there are
// recorded stretches, far beyond what dense NNLS (data/nnls.h, cubic) can handle. The method is
// block principal pivoting (Judice and Pires; Kim and Park's safeguard): guess the set of free
// variables, solve the equality-constrained problem on it with a sparse LDL^T factorisation,
// and exchange every variable that violates the optimality conditions, falling back to one
// exchange at a time when the count of violations stops falling. It usually ends in a few
// factorisations; a warm start (the free set of a neighbouring problem) saves most of them.
// The factorisation keeps the variables' order (no fill-reducing reordering, which cost more
// than the factorisation itself, once per exchange): order them so that H is banded, as the
// fit does by interleaving each bin's start-up and work coefficients.
#pragma once

#include <vector>

#include <Eigen/Sparse>

namespace millrace::data {

// A sparse LDL^T in the variables' own order, reading the matrix's upper triangle in place.
// Eigen 3.4 recognises "no ordering" only when the storage index is Eigen::Index; with int
// indices it copies the matrix twice per factorisation, more than the factorisation costs.
using BandedMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, Eigen::Index>;
using BandedLdlt = Eigen::SimplicialLDLT<BandedMatrix, Eigen::Upper, Eigen::NaturalOrdering<Eigen::Index>>;

struct SparseNnlsResult {
  Eigen::VectorXd x;       // the minimiser, every entry >= 0
  std::vector<char> free;  // the final free set (x > 0 there), a warm start for a similar problem
  int factorisations = 0;  // sparse LDL^T factorisations used
};

// `h` must be symmetric positive definite (add a small ridge where the problem alone is only
// semi-definite; Error otherwise). `free_guess` (empty: all free) seeds the free set.
SparseNnlsResult solve_sparse_nnls(const Eigen::SparseMatrix<double>& h, const Eigen::VectorXd& c,
                                   const std::vector<char>& free_guess = {});

}  // namespace millrace::data
