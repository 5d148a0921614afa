// MatrixCore
