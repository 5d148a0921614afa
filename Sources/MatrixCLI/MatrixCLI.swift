// MatrixCLI
