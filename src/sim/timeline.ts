// The readable timeline of a simulation: the events a person follows (steps,
// bindings, launches, failures), one line each, with repeated FailedScheduling
// messages for a pod shown once. Shared by the CLI and the playground.

import type { LogRecord } from './engine.js';

/** The event types the timeline shows (the full log is in --events and JSON). */
const TIMELINE = new Set([
  'Step',
  'StepFailed',
  'Scheduled',
  'FailedScheduling',
  'PodTerminating',
  'Preempted',
  'NodeAdded',
  'NodeDeleted',
  'NodeNotReady',
  'NodeReady',
  'NodeClaimLaunched',
  'InsufficientCapacity',
  'SpotInterruptionWarning',
  'InstanceTerminated',
  'NoNodeForPod',
  'DeploymentScaled',
  'DeploymentTemplateChanged',
  'DrainEvictionRetry',
  'DrainComplete',
  'Descheduled',
  'DescheduledPodPlaced',
  'DescheduleSkipped',
]);

export function formatTime(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const frac = ms % 1000 ? `.${String(ms % 1000).padStart(3, '0')}` : '';
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${String(m).padStart(h > 0 ? 2 : 1, '0')}m` : ''}${String(rest).padStart(h > 0 || m > 0 ? 2 : 1, '0')}${frac}s`;
}

export function eventLine(r: LogRecord): string {
  const { t, type, ...fields } = r;
  const detail = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${formatTime(t).padStart(10)}  ${type.padEnd(24)} ${detail}`;
}

/** The records the timeline shows; repeated FailedScheduling records for one pod are shown once per message. */
export function timelineRecords(events: readonly LogRecord[], all: boolean): LogRecord[] {
  const lastMessage = new Map<string, string>();
  const out: LogRecord[] = [];
  for (const r of events) {
    if (!all && !TIMELINE.has(r.type)) continue;
    if (!all && r.type === 'FailedScheduling') {
      const pod = r['pod'] as string;
      if (lastMessage.get(pod) === r['message']) continue;
      lastMessage.set(pod, r['message'] as string);
    }
    out.push(r);
  }
  return out;
}

export function timeline(events: readonly LogRecord[], all: boolean): string[] {
  return timelineRecords(events, all).map(eventLine);
}
