module github.com/gort-dev/gort

go 1.27

toolchain go1.27.4

require (
	github.com/chewxy/math32 v1.11.1
	google.golang.org/protobuf v1.36.12
)
