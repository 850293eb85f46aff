//! Workspace root package: owns the black-box tests in tests/ and the examples in examples/.
