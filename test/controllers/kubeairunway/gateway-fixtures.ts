// Fixtures shared by the gateway controller's pure tests.

/** the status of a deployment that holds org/model on gateways/inference since `since` */
export const holdingStatus = (since: string) => ({
  gateway: { modelName: 'org/model', gatewayNamespace: 'gateways', gatewayName: 'inference' },
  conditions: [
    {
      type: 'GatewayReady',
      status: 'True' as const,
      reason: 'HTTPRouteAccepted',
      message: '',
      lastTransitionTime: since,
    },
  ],
});
