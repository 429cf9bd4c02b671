// Plugin registry: name → factory, as upstream's in-tree registry. A plugin takes
// part in every extension point it implements (MultiPoint expansion), in profile order.

import type { Handle, Plugin } from './framework.js';

export interface PluginContext {
  readonly handle: Handle;
  /** pluginConfig args for this plugin, as written in the config file (the plugin applies defaults). */
  readonly args: Readonly<Record<string, unknown>>;
}

export type PluginFactory = (ctx: PluginContext) => Plugin;
