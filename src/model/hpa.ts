// HorizontalPodAutoscalers (autoscaling/v2), reduced to what placement analysis
// needs: which workload they scale and between which bounds.

export interface HorizontalPodAutoscaler {
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly target: { readonly kind: string; readonly name: string };
  readonly minReplicas: number;
  readonly maxReplicas: number;
}
