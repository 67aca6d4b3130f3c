// Non-negative least squares: min ||A x - b|| subject to x >= 0, used to fit cost-model
// coefficients (start-up costs and work densities cannot be negative). Debian bookworm's
// Eigen is 3.4.0, which does not yet ship <unsupported/Eigen/NNLS>, so this is the
// Lawson-Hanson active-set method built on Eigen's decompositions. It works on the normal
// equations (G = A^T A, c = A^T b), which is cheap for the tall, narrow designs of cost
// models (thousands of ranges, tens of bins).
#pragma once

#include <Eigen/Dense>

namespace millrace::data {

// Returns x >= 0 minimising ||A x - b||. Columns of A should be of comparable scale.
Eigen::VectorXd solve_nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b);

}  // namespace millrace::data
