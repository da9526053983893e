// waitgate_build_info{version, component} = 1, the same series for the operator and the receiver.
import { Gauge, type Registry } from 'prom-client';
import { VERSION } from './version.js';

export function registerBuildInfo(registry: Registry, component: 'operator' | 'receiver'): Gauge<'version' | 'component'> {
  const gauge = new Gauge({
    name: 'waitgate_build_info',
    help: 'Always 1; the version of waitgate running, as a label.',
    labelNames: ['version', 'component'] as const,
    registers: [registry],
  });
  gauge.set({ version: VERSION, component }, 1);
  return gauge;
}
