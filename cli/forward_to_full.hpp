#pragma once
// `mesh2dsp` hands the runtime commands (kRuntimeCommands) over to `mesh2dsp-full`, the same
// command line with every command, so that the analysis commands do not load libfaust, LLVM
// and JACK (`mesh2dsp --version` went from 90 to 36 MB resident and from 0.3 to 0.13 s), and
// `--solver slepc` and runs under mpirun over too, so that they do not load PETSc, SLEPc and MPI.
#include <optional>

namespace mesh2dsp {

// When argv's subcommand is a runtime command, or it asks for the distributed solver: replaces the process by mesh2dsp-full (beside
// this binary, or in ../libexec/mesh2dsp/) with the same arguments; returns 1 after printing
// one error when that binary is missing or cannot run. Otherwise nullopt: the command is ours.
std::optional<int> forward_to_full(int argc, char** argv);

}  // namespace mesh2dsp
