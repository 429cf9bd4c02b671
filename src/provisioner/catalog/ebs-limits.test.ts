import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bundledInstanceTypes, BUNDLED_CATALOG } from './catalog.js';
import { ebsCsiVolumeLimit } from './ebs-limits.js';

describe('EBS attach limits', () => {
  it('the driver keeps one attachment for the root volume, and on a shared limit one per network interface beyond the primary', () => {
    assert.equal(ebsCsiVolumeLimit({ maxAttachments: 27, limitType: 'shared' }), 26);
    assert.equal(ebsCsiVolumeLimit({ maxAttachments: 27, limitType: 'shared' }, 3), 24);
    assert.equal(ebsCsiVolumeLimit({ maxAttachments: 32, limitType: 'dedicated' }, 3), 31);
    // Never below 1: Kubernetes reads 0 as no limit.
    assert.equal(ebsCsiVolumeLimit({ maxAttachments: 2, limitType: 'shared' }, 4), 1);
  });

  it('bundled catalog: Nitro types share 27 (28 less the primary interface), m7i/c7i/r7i have dedicated limits by size (AWS volume_limits table)', () => {
    const entry = (name: string) => BUNDLED_CATALOG.instanceTypes.find((t) => t.name === name)!;
    assert.deepEqual([entry('m5.large').ebsMaxAttachments, entry('m5.large').ebsAttachmentLimitType], [27, 'shared']);
    assert.deepEqual([entry('m7i.large').ebsMaxAttachments, entry('m7i.large').ebsAttachmentLimitType], [32, 'dedicated']);
    assert.equal(entry('c7i.24xlarge').ebsMaxAttachments, 64);
    assert.equal(entry('r7i.48xlarge').ebsMaxAttachments, 128);
    assert.equal(entry('m7i.metal-48xl').ebsMaxAttachments, 79);
    const byName = new Map(bundledInstanceTypes().map((it) => [it.name, it]));
    assert.equal(byName.get('m5.large')!.ebsVolumeLimit, 26);
    assert.equal(byName.get('m7i.48xlarge')!.ebsVolumeLimit, 127);
  });
});
