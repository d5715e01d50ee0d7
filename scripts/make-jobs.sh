#!/bin/sh
# Print make's -j argument for a kernel module build: one job per CPU
# (make check builds for seven kernels, one after another), or nothing
# when a parent make already runs jobs of its own (MAKEFLAGS).
case " ${MAKEFLAGS:-} " in
*" -j"* | *jobserver*) ;;
*) echo "-j$(nproc)" ;;
esac
