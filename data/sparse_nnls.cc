#include "data/sparse_nnls.h"

#include <algorithm>
#include <vector>

#include "data/error.h"

namespace millrace::data {

namespace {

constexpr int kBackupExchanges = 3;  // full exchanges allowed without progress before single ones
constexpr int kMaxFactorisations = 500;

// H_FF, the rows and columns of the free variables (in their order, so still banded).
BandedMatrix free_block(const Eigen::SparseMatrix<double>& h, const std::vector<Eigen::Index>& position, Eigen::Index count) {
  BandedMatrix sub(count, count);
  sub.reserve(h.nonZeros());
  for (Eigen::Index j = 0; j < h.cols(); ++j) {
    const Eigen::Index pj = position[static_cast<std::size_t>(j)];
    if (pj < 0) continue;
    sub.startVec(pj);
    for (Eigen::SparseMatrix<double>::InnerIterator it(h, j); it; ++it) {
      const Eigen::Index pi = position[static_cast<std::size_t>(it.row())];
      if (pi >= 0) sub.insertBack(pi, pj) = it.value();
    }
  }
  sub.finalize();
  return sub;
}

// x on the free set solving H_FF x_F = c_F, zero elsewhere.
Eigen::VectorXd solve_on_free_set(const Eigen::SparseMatrix<double>& h, const Eigen::VectorXd& c,
                                  const std::vector<char>& free) {
  const Eigen::Index n = h.rows();
  std::vector<Eigen::Index> position(static_cast<std::size_t>(n), -1);
  Eigen::Index count = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (free[static_cast<std::size_t>(j)]) position[static_cast<std::size_t>(j)] = count++;
  }
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  if (count == 0) return x;
  Eigen::VectorXd rhs(count);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::Index pj = position[static_cast<std::size_t>(j)];
    if (pj >= 0) rhs(pj) = c(j);
  }
  const BandedLdlt ldlt(free_block(h, position, count));
  if (ldlt.info() != Eigen::Success) throw Error("sparse NNLS", "the matrix is not positive definite");
  const Eigen::VectorXd z = ldlt.solve(rhs);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::Index pj = position[static_cast<std::size_t>(j)];
    if (pj >= 0) x(j) = z(pj);
  }
  return x;
}

}  // namespace

SparseNnlsResult solve_sparse_nnls(const Eigen::SparseMatrix<double>& h, const Eigen::VectorXd& c,
                                   const std::vector<char>& free_guess) {
  const auto n = static_cast<std::size_t>(h.rows());
  SparseNnlsResult result{Eigen::VectorXd::Zero(h.rows()), free_guess.size() == n ? free_guess : std::vector<char>(n, 1), 0};
  const double gradient_tolerance = 1e-12 * std::max(1.0, c.cwiseAbs().maxCoeff());
  std::size_t fewest_violations = n + 1;
  int backups_left = kBackupExchanges;
  while (result.factorisations < kMaxFactorisations) {
    result.x = solve_on_free_set(h, c, result.free);
    ++result.factorisations;
    const Eigen::VectorXd gradient = h * result.x - c;
    std::vector<std::size_t> violations;
    for (std::size_t j = 0; j < n; ++j) {
      const auto k = static_cast<Eigen::Index>(j);
      if (result.free[j] ? result.x(k) < 0 : gradient(k) < -gradient_tolerance) violations.push_back(j);
    }
    if (violations.empty()) break;
    if (violations.size() < fewest_violations) {
      fewest_violations = violations.size();
      backups_left = kBackupExchanges;
    } else if (backups_left > 0) {
      --backups_left;
    } else {
      violations = {violations.back()};  // the safeguard: exchange only the last violating variable
    }
    for (std::size_t j : violations) result.free[j] = !result.free[j];
  }
  result.x = result.x.cwiseMax(0.0);
  for (std::size_t j = 0; j < n; ++j) result.free[j] = result.x(static_cast<Eigen::Index>(j)) > 0;
  return result;
}

}  // namespace millrace::data
