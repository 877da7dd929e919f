module github.com/simabi/simabi

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/ebitengine/purego v0.11.3
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.6
