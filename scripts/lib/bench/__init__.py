# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""scripts/bench's modules: the inner run's context, timing, reports, and one module per row
(bench.rows). scripts/bench, the entry point, puts scripts/lib on the path and imports them."""
