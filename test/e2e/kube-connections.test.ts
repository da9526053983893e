// The apiserver client keeps its connections (lib/kube/client.ts): calls share kept-alive TLS
// connections instead of a handshake each, against the real kube-apiserver.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { loadKubeConfig } from '../../lib/kube/client.js';
import { kubeconfigPath } from '../support/env.js';
import { Timeouts } from '../support/timeouts.js';

describe('the apiserver client', () => {
  test(
    'sixty calls, twenty at a time, open no more connections than calls run at once',
    async () => {
      let connections = 0;
      const onConnect = () => {
        connections++;
      };
      subscribe('undici:client:connected', onConnect);
      try {
        const core = loadKubeConfig(kubeconfigPath()).makeApiClient(k8s.CoreV1Api);
        // One after another: one connection, kept alive between them.
        for (let i = 0; i < 20; i++) await core.listNamespace({ limit: 1 });
        const sequential = connections;
        // Twenty at a time, twice: at most twenty more.
        for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: 20 }, () => core.listNamespace({ limit: 1 })));
        expect(sequential).toBe(1);
        expect(connections).toBeLessThanOrEqual(21);
      } finally {
        unsubscribe('undici:client:connected', onConnect);
      }
    },
    Timeouts.testMs,
  );

  test(
    'a changed client certificate gets a new connection; the same one keeps it',
    async () => {
      let connections = 0;
      const onConnect = () => {
        connections++;
      };
      subscribe('undici:client:connected', onConnect);
      try {
        const kc = loadKubeConfig(kubeconfigPath());
        const core = kc.makeApiClient(k8s.CoreV1Api);
        await core.listNamespace({ limit: 1 });
        await core.listNamespace({ limit: 1 });
        expect(connections).toBe(1);
        // The same kubeconfig loaded again (what a rotation that rewrites the file looks like
        // to the options) but with the server named differently: new options, new connection.
        const user = kc.getCurrentUser();
        const cluster = kc.getCurrentCluster();
        if (!user || !cluster) throw new Error('the kubeconfig has no current user or cluster');
        kc.loadFromOptions({
          clusters: [{ ...cluster, name: 'renamed' }],
          users: [user],
          contexts: [{ name: 'renamed', cluster: 'renamed', user: user.name }],
          currentContext: 'renamed',
        });
        await core.listNamespace({ limit: 1 });
        expect(connections).toBe(2);
      } finally {
        unsubscribe('undici:client:connected', onConnect);
      }
    },
    Timeouts.testMs,
  );
});
