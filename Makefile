# prlab — one Makefile for the main job, the tests and the GPU library.
# Targets are added by area; keep each target's recipe short and call Go or scripts/.
GO ?= go
.PHONY: all build test
all: build
build:
	$(GO) build ./...
