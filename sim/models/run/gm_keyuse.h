/* SPDX-License-Identifier: MIT */
/*
 * gm_keyuse: every key a scenario sets (in its file or by --set) either
 * changes what the run simulates or is refused, with the reason and what
 * to give instead: a key accepted and ignored would let a study believe
 * it varied something it did not.
 *
 * A run (gm_run_scenario) uses a key when the model reads it for what it
 * simulates: the component keys (gpu.*, pcie.*, proxy.*, nic.*, ...)
 * through its transport (gm_xport_uses_key), the network's keys when a
 * message crosses the network, the packet keys under the packet fidelity,
 * the step geometry (collective.chunk, slice, buffer) where the schedule
 * or its credits read it, and so on (gm_keyuse.c lists each rule). Keys
 * that name or describe the report (name, description), assert invariants
 * (sim.check), choose the command's mode (workload, sweep.*) and train.*
 * (refused by gm_run for a collective) are not judged here.
 *
 * A training step runs each phase through gm_run with the step's keys
 * (gm_run_opts.step_phase): a phase judges only what holds for every phase
 * (the fidelity, the topology, the transport), and the step itself
 * refuses the collective keys its phases set for themselves.
 *
 * A sweep runs the scenario once per cell: a key the scenario sets may
 * serve some cells and not others (topology.fabric.sharp in a sweep of
 * collective.algo over collnet and ring), so each cell lists what it does
 * not use, and the sweep refuses a key no cell uses.
 */
#ifndef GM_KEYUSE_H
#define GM_KEYUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/gc_config.h"
#include "gm_run.h"

/* The keys r's scenario sets (in registration order) that the run does
 * not use. With unused NULL, the first is refused: GC_ERR_INPUT with
 * "WHERE: KEY: not used by this run: why; what to do" in *errmsg. With
 * unused given (a cell of a sweep, gm_run_opts.sweep_cell), each is
 * appended to *unused instead, as a pair of strings, the key and that
 * refusal (a NULL-terminated strv, g_strfreev it). Called once the run's
 * topology, collective, protocols, candidates and transport are set up,
 * before any size is timed. step_phase: r is one phase of a training step. */
gc_status gm_keyuse_check(const gm_run *r, bool step_phase, char ***unused, char **errmsg);

/* A training step (workload: step): the collective keys each phase sets
 * for itself (collective.op, sizes, group.*, compare; moe.* but for
 * moe.chunk), and seed and moe.chunk where no phase draws or forwards
 * tokens (train.ep 1, train.ep_algo put). unused as gm_keyuse_check's. */
gc_status gm_keyuse_check_step(const gc_config *cfg, char ***unused, char **errmsg);

/* The pairs (key, refusal) of lists[0] whose key every one of the n lists
 * holds (NULL when none; a NULL list holds none): what every cell of a
 * sweep, or every phase of a step, leaves unused. g_strfreev it. */
char **gm_keyuse_common(char *const *const *lists, size_t n);

/* Refuse the first key of a pair list (GC_OK when it is empty): the
 * refusal as stored, with `note` appended when not NULL. */
gc_status gm_keyuse_refuse(char *const *unused, const char *note, char **errmsg);

#endif
