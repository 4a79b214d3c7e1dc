package artifactref

// Artifact is a stored artifact: its reference and its bytes. The bytes
// belong to the caller.
type Artifact struct {
	Ref   Ref
	Bytes []byte
}
