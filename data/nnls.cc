#include "data/nnls.h"

#include <algorithm>
#include <vector>

namespace millrace::data {

namespace {

// Least squares restricted to the passive columns, through the normal equations.
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& g, const Eigen::VectorXd& c, const std::vector<bool>& passive) {
  std::vector<Eigen::Index> idx;
  for (Eigen::Index j = 0; j < c.size(); ++j) {
    if (passive[j]) idx.push_back(j);
  }
  const auto n = static_cast<Eigen::Index>(idx.size());
  Eigen::MatrixXd gp(n, n);
  Eigen::VectorXd cp(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    cp(r) = c(idx[r]);
    for (Eigen::Index k = 0; k < n; ++k) gp(r, k) = g(idx[r], idx[k]);
  }
  const Eigen::VectorXd zp = gp.completeOrthogonalDecomposition().solve(cp);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(c.size());
  for (Eigen::Index r = 0; r < n; ++r) z(idx[r]) = zp(r);
  return z;
}

}  // namespace

Eigen::VectorXd solve_nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const Eigen::Index n = a.cols();
  const Eigen::MatrixXd g = a.transpose() * a;
  const Eigen::VectorXd c = a.transpose() * b;
  const double tolerance = 1e-12 * std::max(1.0, c.cwiseAbs().maxCoeff()) * static_cast<double>(std::max<Eigen::Index>(n, 1));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(n, false);
  const int max_outer = static_cast<int>(3 * n + 10);
  for (int outer = 0; outer < max_outer; ++outer) {
    const Eigen::VectorXd gradient = c - g * x;
    Eigen::Index best = -1;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!passive[j] && gradient(j) > tolerance && (best < 0 || gradient(j) > gradient(best))) best = j;
    }
    if (best < 0) break;
    passive[best] = true;
    for (int inner = 0; inner <= n; ++inner) {
      const Eigen::VectorXd z = solve_passive(g, c, passive);
      double alpha = 1.0;
      bool all_positive = true;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[j] && z(j) <= 0) {
          all_positive = false;
          const double step = x(j) - z(j);
          if (step > 0) alpha = std::min(alpha, x(j) / step);
        }
      }
      if (all_positive) {
        x = z;
        break;
      }
      x += alpha * (z - x);
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[j] && x(j) <= tolerance * 1e-6) {
          passive[j] = false;
          x(j) = 0;
        }
      }
    }
  }
  return x.cwiseMax(0.0);
}

}  // namespace millrace::data
