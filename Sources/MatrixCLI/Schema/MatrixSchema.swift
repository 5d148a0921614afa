/// The matrix format's JSON Schema (draft 2020-12), for editors and CI outside this repository: `matrix schema
/// --out FILE` writes it, and a matrix names it with `$schema`. The text is generated from
/// `schema/matrix.schema.json` by `scripts/embed-schema.py`; a test keeps the two the same bytes.
public enum MatrixSchema {
    /// The file name `matrix init` writes in `$schema` by default.
    public static let fileName = "matrix.schema.json"
}
