#include "data/sparse_nnls.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "data/nnls.h"
#include "data/uniform_draws.h"

namespace millrace::data {
namespace {

// A banded least-squares problem like a cost-model design: each row covers a few neighbouring
// columns; targets from coefficients of which about a third are zero, plus noise pushing the
// unconstrained solution negative there.
struct BandedProblem {
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
};

BandedProblem banded_problem(int rows, int columns, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  BandedProblem p{Eigen::MatrixXd::Zero(rows, columns), Eigen::VectorXd(rows)};
  Eigen::VectorXd truth(columns);
  for (int j = 0; j < columns; ++j) truth(j) = unit_draw(rng) < 0.35 ? 0.0 : 1 + 4 * unit_draw(rng);
  for (int r = 0; r < rows; ++r) {
    const int first = r < columns - 2 ? r : static_cast<int>(unit_draw(rng) * (columns - 3));  // every column covered
    for (int j = first; j < first + 3; ++j) p.a(r, j) = 0.2 + unit_draw(rng);
  }
  p.b = p.a * truth;
  for (int r = 0; r < rows; ++r) p.b(r) += 0.5 * (unit_draw(rng) - 0.5);
  return p;
}

// The optimality conditions checked directly: x >= 0, gradient >= 0, and gradient 0 where x > 0.
void expect_kkt(const Eigen::MatrixXd& h, const Eigen::VectorXd& c, const Eigen::VectorXd& x) {
  const Eigen::VectorXd gradient = h * x - c;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    EXPECT_GE(x(j), 0) << "x " << j;
    EXPECT_GE(gradient(j), -1e-8) << "gradient " << j;
    if (x(j) > 1e-9) {
      EXPECT_NEAR(gradient(j), 0, 1e-8) << "gradient " << j;
    }
  }
}

TEST(SparseNnls, AgreesWithDenseNnlsAndMeetsTheOptimalityConditions) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    const BandedProblem p = banded_problem(120, 40, seed);
    const Eigen::MatrixXd h = p.a.transpose() * p.a;
    const Eigen::VectorXd c = p.a.transpose() * p.b;
    const SparseNnlsResult result = solve_sparse_nnls(h.sparseView(), c);
    expect_kkt(h, c, result.x);
    const Eigen::VectorXd dense = solve_nnls(p.a, p.b);
    EXPECT_LT((result.x - dense).cwiseAbs().maxCoeff(), 1e-7) << "seed " << seed;
    EXPECT_GT((result.x.array() == 0).count(), 0) << "seed " << seed << ": the bound should be active somewhere";
  }
}

TEST(SparseNnls, AWarmStartFromTheSolutionNeedsOneFactorisation) {
  const BandedProblem p = banded_problem(200, 60, 9);
  const Eigen::MatrixXd h = p.a.transpose() * p.a;
  const Eigen::VectorXd c = p.a.transpose() * p.b;
  const SparseNnlsResult cold = solve_sparse_nnls(h.sparseView(), c);
  const SparseNnlsResult warm = solve_sparse_nnls(h.sparseView(), c, cold.free);
  EXPECT_EQ(warm.factorisations, 1);
  EXPECT_LT((warm.x - cold.x).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SparseNnls, AllNegativeTargetsGiveZero) {
  Eigen::MatrixXd h = Eigen::MatrixXd::Identity(5, 5) * 2;
  h(0, 1) = h(1, 0) = 0.5;
  const Eigen::VectorXd c = -Eigen::VectorXd::Ones(5);
  const SparseNnlsResult result = solve_sparse_nnls(h.sparseView(), c);
  EXPECT_EQ(result.x, Eigen::VectorXd::Zero(5));
}

}  // namespace
}  // namespace millrace::data
