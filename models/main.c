/* main.c — `rnn-train`: the command line (train_cli.c) with the native hooks
 * (train_native.c); rnn-train-smpi has its own main, which sets SMPI's first. */
#include "train.h"

int main(int argc, char **argv) { return train_cli_main(argc, argv); }
