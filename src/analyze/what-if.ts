// Runs one what-if simulation for a check: the analysed cluster and workloads,
// the given steps (a rollout, a node failure, a scale-up...) and expectations,
// with the provisioner on or off as the context says. Every check that needs
// a counterexample goes through here, so they all simulate the same cluster.

import type { ScenarioRun } from '../sim/scenario.js';
import { runScenario } from '../sim/scenario.js';
import type { Action, Check as Expect } from '../sim/scenario-spec.js';
import type { Simulation } from '../sim/simulation.js';
import type { AnalysisContext } from './check.js';

export interface WhatIf {
  /** A short name for the simulation, used in step sources ("what-if:node-loss"). */
  readonly name: string;
  readonly steps: readonly { readonly at: number; readonly action: Action }[];
  readonly expect?: readonly { readonly at?: number; readonly check: Expect }[];
  readonly untilMs: number;
  /** Overrides the context's provisioner switch (e.g. node-loss without the provisioner). */
  readonly provisioner?: boolean;
  /** Subscribes observers to the simulation before it runs (e.g. a ready-replicas tracker). */
  readonly observe?: (sim: Simulation) => void;
}

export function simulateWhatIf(ctx: AnalysisContext, w: WhatIf): ScenarioRun {
  const source = `what-if:${w.name}`;
  return runScenario(
    ctx.input,
    {
      name: w.name,
      seed: ctx.seed,
      untilMs: w.untilMs,
      provisioner: { enabled: w.provisioner ?? ctx.provisioner },
      timing: {},
      steps: w.steps.map((s) => ({ ...s, source })),
      expect: (w.expect ?? []).map((e) => ({ ...e, source })),
    },
    { instanceTypes: ctx.instanceTypes, ...(w.observe ? { onStart: w.observe } : {}) },
  );
}
