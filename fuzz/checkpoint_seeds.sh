#!/bin/sh
# checkpoint_seeds.sh — remake fuzz/seeds/checkpoint/: the checkpoints of two tiny
# rnn-train runs on fuzz/seeds/corpus/moby.txt, the identities fuzz/fuzz_checkpoint.c
# expects (an LSTM with adam's two state arrays, a two-layer Elman with sgd's none).
# Run from the repository root after `make`: sh fuzz/checkpoint_seeds.sh
set -eu
out=fuzz/seeds/checkpoint
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # name, then rnn-train's model flags
    name=$1; shift
    build/bin/rnn-train --corpus fuzz/seeds/corpus/moby.txt --level char --batch 2 --bptt 5 \
        --steps 3 --checkpoint-every 3 --gemm naive --threads 1 --checkpoint "$tmp/$name" "$@" > /dev/null
    cp "$(ls "$tmp/$name"/ckpt-*.bin | tail -n 1)" "$out/$name.bin"
}
mkdir -p "$out"
run lstm-adam --model lstm --layers 1 --hidden 4 --embed 3 --optimizer adam
run elman-sgd --model elman --layers 2 --hidden 3 --embed 3 --optimizer sgd
ls -l "$out"
