// Plugin registry: name → factory, as upstream's in-tree registry. A plugin takes
// part in every extension point it implements (MultiPoint expansion), in profile order.

import type { Handle, Plugin } from './framework.js';

import type { FeatureGates } from './feature-gates.js';

export interface PluginContext {
  readonly handle: Handle;
  /** pluginConfig args for this plugin, as written in the config file (the plugin applies defaults). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The feature gates set away from their default (`--feature-gates`). */
  readonly features?: FeatureGates;
}

export type PluginFactory = (ctx: PluginContext) => Plugin;
