// Runs one what-if simulation for a check: the analysed cluster and workloads,
// the given steps (a rollout, a node failure, a scale-up...) and expectations,
// with the provisioner on or off as the context says. Every check that needs
// a counterexample goes through here, so they all simulate the same cluster.

import { startScenario, type ScenarioRun, type ScenarioSession } from '../sim/scenario.js';
import type { Action, Check as Expect } from '../io/scenario-spec.js';
import type { Simulation } from '../sim/simulation.js';
import type { AnalysisContext } from './check.js';
import { sharedInputName } from './remedies.js';

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
  return whatIfSession(ctx, w).runTo(w.untilMs);
}

/** The what-if built and started, to run in legs (ScenarioSession), e.g. watched for longer while it still moves. */
export function whatIfSession(ctx: AnalysisContext, w: Omit<WhatIf, 'untilMs'>): ScenarioSession {
  const source = `what-if:${w.name}`;
  return startScenario(
    ctx.input,
    {
      name: w.name,
      seed: ctx.seed,
      provisioner: { enabled: w.provisioner ?? ctx.provisioner },
      timing: {},
      ...(ctx.descheduler ? { descheduler: ctx.descheduler } : {}),
      steps: w.steps.map((s) => ({ ...s, source })),
      expect: (w.expect ?? []).map((e) => ({ ...e, source })),
    },
    { instanceTypes: ctx.instanceTypes, ...(ctx.scheduler ? { schedulerConfig: ctx.scheduler } : {}), ...(w.observe ? { observe: w.observe } : {}) },
  );
}

/** How long a baseline runs: long enough for every workload to start and settle. */
export const BASELINE_MS = 10 * 60_000;

const memo = new WeakMap<AnalysisContext['input'], WeakMap<AnalysisContext['instanceTypes'], Map<string, unknown>>>();

/**
 * What `make` gives, once per input, catalog and the context's other settings
 * (provisioner, seed, descheduler, scheduler) and `key`: for what several checks or
 * fix proofs read of one simulation. Callers must only read it.
 */
export function memoized<T>(ctx: AnalysisContext, key: string, make: () => T): T {
  let byCatalog = memo.get(ctx.input);
  if (!byCatalog) memo.set(ctx.input, (byCatalog = new WeakMap()));
  let values = byCatalog.get(ctx.instanceTypes);
  if (!values) byCatalog.set(ctx.instanceTypes, (values = new Map()));
  const full = JSON.stringify([ctx.provisioner, ctx.seed, ctx.descheduler ?? null, ctx.scheduler ?? null, key]);
  if (!values.has(full)) values.set(full, make());
  return values.get(full) as T;
}

/**
 * memoized, and given to the other workers of a pool (ctx.exchange) when the input
 * is one every worker makes alike (the checked one, or shared changes of it): a
 * value one worker made, the others read instead of making it again. `make` must
 * give plain data (it crosses threads).
 */
export function exchanged<T>(ctx: AnalysisContext, key: string, make: () => T): T {
  return memoized(ctx, key, () => {
    const { exchange } = ctx;
    const name = exchange && ctx.instanceTypes === exchange.instanceTypes ? sharedInputName(ctx.input, exchange.input) : undefined;
    const full = name === undefined ? undefined : JSON.stringify([name, ctx.provisioner, ctx.seed, ctx.descheduler ?? null, ctx.scheduler ?? null, key]);
    if (full !== undefined) {
      const known = exchange!.get(full);
      if (known !== undefined) return known as T;
    }
    const made = make();
    if (full !== undefined) exchange!.set(full, made);
    return made;
  });
}

/**
 * simulateWhatIf, memoized per input, catalog, seed and what-if (steps,
 * expectations, duration, provisioner): for simulations several checks need (the
 * baseline, a workload's rollout). Callers must only read the run. A what-if with
 * an observer is run afresh.
 */
export function sharedWhatIf(ctx: AnalysisContext, w: WhatIf): ScenarioRun {
  // An observer must see its own run: such a what-if is never shared.
  if (w.observe) return simulateWhatIf(ctx, w);
  return memoized(ctx, JSON.stringify(['what-if', w.provisioner ?? ctx.provisioner, w.untilMs, w.steps, w.expect ?? []]), () => simulateWhatIf(ctx, w));
}

/** The cluster left alone (no steps) for BASELINE_MS, with the context's provisioner setting. */
export const BASELINE_WHAT_IF: WhatIf = { name: 'baseline', steps: [], untilMs: BASELINE_MS };

/** The cluster left alone (no steps) for BASELINE_MS: what most checks compare a what-if against. */
export function baseline(ctx: AnalysisContext, provisioner = ctx.provisioner): ScenarioRun {
  return sharedWhatIf(ctx, { ...BASELINE_WHAT_IF, provisioner });
}
