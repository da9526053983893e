{{/* The spec of the heldjob-launchers ValidatingAdmissionPolicy. Include with
(dict "receiver" "<the receiver's user name, or empty when there is none>"). */}}
{{- define "waitgate.heldJobLaunchersSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [waitgate.dev]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [heldjobs]
matchConditions:
  # Status and metadata writes (the operator's finalizer, labels) launch nothing new.
  - name: writes-spec
    expression: "request.operation == 'CREATE' || object.spec != oldObject.spec"
  {{- with .receiver }}
  - name: not-the-receiver
    expression: {{ printf "request.userInfo.username != '%s'" . | quote }}
  {{- end }}
validations:
  - expression: "authorizer.group('batch').resource('jobs').namespace(request.namespace).check('create').allowed()"
    reason: Forbidden
    message: "waitgate: a HeldJob launches a Job in its namespace, so writing one needs the permission to create jobs.batch there too"
    messageExpression: >-
      'waitgate: ' + request.userInfo.username + ' lacks the permission to create jobs.batch in namespace '
      + request.namespace + ', and a HeldJob there is launched as a Job; writing a HeldJob needs that permission too'
{{- end -}}

{{/* The spec of the heldjob-spec-immutable ValidatingAdmissionPolicy: once a HeldJob has
launched or ended (its phase past Held, or its Job confirmed created: Launched True), its spec
changes no more. The apiserver moves metadata.generation on any
change but to metadata and status (a field the schema does not describe included), so that is
what matches; status writes go to a subresource and finalizers are metadata, so neither does.
The message names each spec field that changed, from the keys of the object itself (the CRD's
own CEL sees spec as a typed object and could name neither a field it does not describe nor
any key). */}}
{{- define "waitgate.heldJobSpecImmutableSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [waitgate.dev]
      apiVersions: ["*"]
      operations: [UPDATE]
      resources: [heldjobs]
matchConditions:
  - name: changes-spec
    expression: "object.metadata.generation != oldObject.metadata.generation"
variables:
  - name: changed
    expression: >-
      object.spec.map(k, k).filter(k, !(k in oldObject.spec) || object.spec[k] != oldObject.spec[k])
      + oldObject.spec.map(k, k).filter(k, !(k in object.spec))
  - name: phase
    expression: "has(oldObject.status) && has(oldObject.status.phase) ? oldObject.status.phase : ''"
  # A Job confirmed created (condition Launched True, which heldjob-status lets no one take
  # back, nor a launched hold go back to Held) keeps the spec closed, whatever a later status
  # write says the phase is.
  - name: launched
    expression: >-
      has(oldObject.status) && has(oldObject.status.conditions)
      && oldObject.status.conditions.exists(c, c.type == 'Launched' && c.status == 'True')
validations:
  - expression: "variables.phase in ['', 'Pending', 'Held'] && !variables.launched"
    reason: Invalid
    message: "waitgate: the spec of a HeldJob is immutable once it has launched or ended"
    messageExpression: >-
      'waitgate: ' + (size(variables.changed) == 0 ? 'spec' : variables.changed.map(k, 'spec.' + k).join(', '))
      + ': the spec of a HeldJob is immutable once it has launched or ended (' + object.metadata.name + ' is '
      + (variables.phase == '' ? 'new' : variables.phase)
      + (variables.phase in ['', 'Pending', 'Held'] ? ', its Job created' : '')
      + '); its Job runs as launched, so create a new HeldJob to run another'
{{- end -}}

{{/* The spec of the operator-pods ValidatingAdmissionPolicy. Include with
(dict "operator" "<the operator's user name>"). */}}
{{- define "waitgate.operatorPodsSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
matchConditions:
  - name: from-the-operator
    expression: {{ printf "request.userInfo.username == '%s'" .operator | quote }}
variables:
  - name: containers
    expression: "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
validations:
  - expression: "has(object.spec.automountServiceAccountToken) && object.spec.automountServiceAccountToken == false"
    reason: Forbidden
    message: "waitgate: a Pod the operator creates mounts no service-account token (automountServiceAccountToken: false)"
  - expression: "!has(object.spec.serviceAccountName) || object.spec.serviceAccountName in ['', 'default']"
    reason: Forbidden
    message: "waitgate: a Pod the operator creates runs as its namespace's default ServiceAccount"
  - expression: >-
      has(object.spec.securityContext) && has(object.spec.securityContext.runAsNonRoot) && object.spec.securityContext.runAsNonRoot
      && !(has(object.spec.securityContext.runAsUser) && object.spec.securityContext.runAsUser == 0)
      && variables.containers.all(c, !has(c.securityContext)
        || (!(has(c.securityContext.runAsNonRoot) && !c.securityContext.runAsNonRoot)
          && !(has(c.securityContext.runAsUser) && c.securityContext.runAsUser == 0)))
    reason: Forbidden
    message: "waitgate: a Pod the operator creates runs as a user other than root (runAsNonRoot: true, no runAsUser 0)"
  - expression: >-
      !(has(object.spec.hostNetwork) && object.spec.hostNetwork) && !(has(object.spec.hostPID) && object.spec.hostPID)
      && !(has(object.spec.hostIPC) && object.spec.hostIPC)
      && variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)
    reason: Forbidden
    message: "waitgate: a Pod the operator creates shares no host namespace and is not privileged"
  - expression: >-
      !has(object.spec.volumes) || object.spec.volumes.all(v, has(v.configMap) || has(v.emptyDir) || has(v.downwardAPI)
        || (has(v.secret) && has(v.secret.secretName)))
    reason: Forbidden
    message: "waitgate: a Pod the operator creates mounts only configMap, emptyDir, downwardAPI and named secret volumes (no token, projected, hostPath or other volume); check-pod-secrets says which Secrets"
  - expression: >-
      variables.containers.all(c, (!has(c.env) || c.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef)
          || has(e.valueFrom.secretKeyRef.name)))
        && (!has(c.envFrom) || c.envFrom.all(f, !has(f.secretRef))))
    reason: Forbidden
    message: "waitgate: a Pod the operator creates reads a Secret into its environment only key by key (valueFrom.secretKeyRef, never envFrom); check-pod-secrets says which Secrets"
  - expression: >-
      variables.containers.all(c, has(c.securityContext) && has(c.securityContext.allowPrivilegeEscalation)
        && !c.securityContext.allowPrivilegeEscalation
        && (!has(c.securityContext.capabilities) || !has(c.securityContext.capabilities.add) || size(c.securityContext.capabilities.add) == 0))
    reason: Forbidden
    message: "waitgate: a Pod the operator creates adds no capability and allows no privilege escalation (allowPrivilegeEscalation: false)"
  - expression: "variables.containers.all(c, !has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0))"
    reason: Forbidden
    message: "waitgate: a Pod the operator creates opens no hostPort"
  # Placed only as operator.checkPods and a profile say: imagePullSecrets, nodeSelector,
  # tolerations, affinity and priorityClassName; no node named outright, no other scheduler,
  # runtime class or spread constraints.
  - expression: >-
      !has(object.spec.nodeName) && !has(object.spec.runtimeClassName) && !has(object.spec.topologySpreadConstraints)
      && (!has(object.spec.schedulerName) || object.spec.schedulerName == 'default-scheduler')
    reason: Forbidden
    message: "waitgate: a Pod the operator creates is placed only by imagePullSecrets, nodeSelector, tolerations, affinity and priorityClassName (no nodeName, schedulerName, runtimeClassName or topologySpreadConstraints)"
{{- end -}}


{{/* The spec of the operator-jobs ValidatingAdmissionPolicy, bound in every namespace. Include
with (dict "operator" "<the operator's user name>" "releaseNamespace" "<ns>" "serviceAccounts"
(list of the chart's ServiceAccount names) "secrets" (list of Secret names a Job in the release
namespace may use) "refused" (list of namespaces where it creates no Job) "levels" (map of
namespace to "baseline" or "privileged") "level" (the level of every other namespace)).

An allowlist: a Job the operator's ServiceAccount creates (or updates: the launch finalizer
coming off) is admitted only when it is in a namespace the operator may launch in, is
controlled by a HeldJob (the ownerReference the operator writes; that the HeldJob exists is
not something admission can ask), and its Pod template meets the Pod Security "baseline"
level, unless admissionPolicy.jobPodSecurity widens that namespace to "privileged". In the
release namespace, where the release's own Secrets and ServiceAccounts are, it also reads no
Secret but those admissionPolicy.releaseNamespaceJobSecrets names and runs as none of the
chart's ServiceAccounts. Whoever holds the operator's token (a stolen copy, an exec-mode check
script, a bug) has exactly this much. A refusal is "Invalid" (422): the operator ends the hold
JobRejected with the message rather than trying again. */}}
{{- define "waitgate.operatorJobsSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [batch]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [jobs]
matchConditions:
  - name: from-the-operator
    expression: {{ printf "request.userInfo.username == '%s'" .operator | quote }}
variables:
  - name: pod
    expression: "object.spec.template.spec"
  - name: containers
    expression: "variables.pod.containers + (has(variables.pod.initContainers) ? variables.pod.initContainers : [])"
  - name: inRelease
    expression: {{ printf "request.namespace == '%s'" .releaseNamespace | quote }}
  - name: allowedSecrets
    expression: {{ .secrets | default list | toJson | quote }}
  - name: chartAccounts
    expression: {{ .serviceAccounts | toJson | quote }}
  - name: refusedNamespaces
    expression: {{ .refused | default list | toJson | quote }}
  - name: levels
    expression: {{ .levels | default dict | toJson | quote }}
  - name: level
    expression: {{ printf "request.namespace in variables.levels ? variables.levels[request.namespace] : '%s'" .level | quote }}
  # Pod Security "baseline" applies unless the namespace is widened to "privileged".
  - name: baseline
    expression: "variables.level != 'privileged'"
  - name: contexts
    expression: "variables.containers.filter(c, has(c.securityContext)).map(c, c.securityContext)"
  # The capabilities baseline lets a container add (Pod Security Standards).
  - name: baselineCapabilities
    expression: "['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']"
  # The sysctls baseline calls safe (namespaced, no effect beyond the Pod).
  - name: safeSysctls
    expression: >-
      ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
      'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports',
      'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl',
      'net.ipv4.tcp_keepalive_probes']
  - name: seLinuxTypes
    expression: "['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']"
validations:
  - expression: "!(request.namespace in variables.refusedNamespaces)"
    reason: Invalid
    message: "waitgate: the operator creates no Job in this namespace (kube-system, kube-public, kube-node-lease and admissionPolicy.refuseJobsIn)"
    messageExpression: >-
      'waitgate: the operator creates no Job in namespace ' + request.namespace
      + ' (kube-system, kube-public, kube-node-lease and admissionPolicy.refuseJobsIn are refused)'
  - expression: >-
      has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o,
        o.kind == 'HeldJob' && o.apiVersion.startsWith('waitgate.dev/') && has(o.controller) && o.controller)
    reason: Invalid
    message: "waitgate: a Job the operator creates is controlled by a HeldJob (an ownerReference to waitgate.dev HeldJob with controller: true)"
  - expression: >-
      !variables.inRelease || !has(variables.pod.volumes) || variables.pod.volumes.all(v,
        (!has(v.secret) || (has(v.secret.secretName) && v.secret.secretName in variables.allowedSecrets))
        && (!has(v.projected) || !has(v.projected.sources) || v.projected.sources.all(s,
          !has(s.secret) || (has(s.secret.name) && s.secret.name in variables.allowedSecrets))))
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace mounts no Secret but those admissionPolicy.releaseNamespaceJobSecrets names"
  - expression: >-
      !variables.inRelease || variables.containers.all(c,
        (!has(c.env) || c.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef)
          || (has(e.valueFrom.secretKeyRef.name) && e.valueFrom.secretKeyRef.name in variables.allowedSecrets)))
        && (!has(c.envFrom) || c.envFrom.all(f, !has(f.secretRef)
          || (has(f.secretRef.name) && f.secretRef.name in variables.allowedSecrets))))
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace reads no Secret into its environment but those admissionPolicy.releaseNamespaceJobSecrets names"
  - expression: >-
      !variables.inRelease
      || (!(has(variables.pod.serviceAccountName) && variables.pod.serviceAccountName in variables.chartAccounts)
        && !(has(variables.pod.serviceAccount) && variables.pod.serviceAccount in variables.chartAccounts))
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace does not run as one of waitgate's own ServiceAccounts"
  # Pod Security baseline, one line each, in the order of the standard.
  - expression: >-
      !variables.baseline || (!(has(variables.pod.hostNetwork) && variables.pod.hostNetwork)
        && !(has(variables.pod.hostPID) && variables.pod.hostPID) && !(has(variables.pod.hostIPC) && variables.pod.hostIPC))
    reason: Invalid
    message: "waitgate: a Job the operator creates shares no host namespace (hostNetwork, hostPID, hostIPC): Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || variables.contexts.all(s, !has(s.privileged) || !s.privileged)
    reason: Invalid
    message: "waitgate: a Job the operator creates has no privileged container: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || variables.contexts.all(s, !has(s.capabilities) || !has(s.capabilities.add)
        || s.capabilities.add.all(a, a in variables.baselineCapabilities))
    reason: Invalid
    message: "waitgate: a Job the operator creates adds no capability beyond Pod Security baseline's (AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT): admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || !has(variables.pod.volumes) || variables.pod.volumes.all(v, !has(v.hostPath))
    reason: Invalid
    message: "waitgate: a Job the operator creates mounts no hostPath volume: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || variables.containers.all(c, !has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0))
    reason: Invalid
    message: "waitgate: a Job the operator creates opens no hostPort: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || (!(has(variables.pod.securityContext) && has(variables.pod.securityContext.seccompProfile)
          && variables.pod.securityContext.seccompProfile.type == 'Unconfined')
        && variables.contexts.all(s, !has(s.seccompProfile) || s.seccompProfile.type != 'Unconfined'))
    reason: Invalid
    message: "waitgate: a Job the operator creates sets no Unconfined seccomp profile: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || (!(has(variables.pod.securityContext) && has(variables.pod.securityContext.appArmorProfile)
          && variables.pod.securityContext.appArmorProfile.type == 'Unconfined')
        && variables.contexts.all(s, !has(s.appArmorProfile) || s.appArmorProfile.type != 'Unconfined')
        && (!has(object.spec.template.metadata) || !has(object.spec.template.metadata.annotations)
          || object.spec.template.metadata.annotations.all(k, !k.startsWith('container.apparmor.security.beta.kubernetes.io/')
            || object.spec.template.metadata.annotations[k] == 'runtime/default'
            || object.spec.template.metadata.annotations[k].startsWith('localhost/'))))
    reason: Invalid
    message: "waitgate: a Job the operator creates runs no container AppArmor-unconfined: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || ((!has(variables.pod.securityContext) || !has(variables.pod.securityContext.seLinuxOptions)
          || variables.pod.securityContext.seLinuxOptions.type in variables.seLinuxTypes || !has(variables.pod.securityContext.seLinuxOptions.type))
        && (!has(variables.pod.securityContext) || !has(variables.pod.securityContext.seLinuxOptions)
          || (!has(variables.pod.securityContext.seLinuxOptions.user) && !has(variables.pod.securityContext.seLinuxOptions.role)))
        && variables.contexts.all(s, !has(s.seLinuxOptions)
          || ((!has(s.seLinuxOptions.type) || s.seLinuxOptions.type in variables.seLinuxTypes)
            && !has(s.seLinuxOptions.user) && !has(s.seLinuxOptions.role))))
    reason: Invalid
    message: "waitgate: a Job the operator creates sets no SELinux user or role, and only a container SELinux type: Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || variables.contexts.all(s, !has(s.procMount) || s.procMount == 'Default')
    reason: Invalid
    message: "waitgate: a Job the operator creates keeps the default /proc mask (procMount): Pod Security baseline, admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || !has(variables.pod.securityContext) || !has(variables.pod.securityContext.sysctls)
      || variables.pod.securityContext.sysctls.all(x, x.name in variables.safeSysctls)
    reason: Invalid
    message: "waitgate: a Job the operator creates sets only the sysctls Pod Security baseline calls safe: admissionPolicy.jobPodSecurity"
  - expression: >-
      !variables.baseline || (!(has(variables.pod.securityContext) && has(variables.pod.securityContext.windowsOptions)
          && has(variables.pod.securityContext.windowsOptions.hostProcess) && variables.pod.securityContext.windowsOptions.hostProcess)
        && variables.contexts.all(s, !has(s.windowsOptions) || !has(s.windowsOptions.hostProcess) || !s.windowsOptions.hostProcess))
    reason: Invalid
    message: "waitgate: a Job the operator creates runs no Windows HostProcess container: Pod Security baseline, admissionPolicy.jobPodSecurity"
{{- end -}}

{{/* The spec of the operator-events ValidatingAdmissionPolicy, bound in every namespace.
Include with (dict "operator" "<the operator's user name>"). The operator's Events are about
its HeldJobs (and may be about their Jobs); with its token, one cannot write Events that seem to
come from elsewhere about Pods, Nodes or anything else. */}}
{{- define "waitgate.operatorEventsSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [events]
    - apiGroups: [events.k8s.io]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [events]
matchConditions:
  - name: from-the-operator
    expression: {{ printf "request.userInfo.username == '%s'" .operator | quote }}
validations:
  - expression: >-
      (has(object.involvedObject) && has(object.involvedObject.kind) && has(object.involvedObject.apiVersion)
        && ((object.involvedObject.kind == 'HeldJob' && object.involvedObject.apiVersion.startsWith('waitgate.dev/'))
          || (object.involvedObject.kind == 'Job' && object.involvedObject.apiVersion.startsWith('batch/'))))
      || (has(object.regarding) && has(object.regarding.kind) && has(object.regarding.apiVersion)
        && ((object.regarding.kind == 'HeldJob' && object.regarding.apiVersion.startsWith('waitgate.dev/'))
          || (object.regarding.kind == 'Job' && object.regarding.apiVersion.startsWith('batch/'))))
    reason: Forbidden
    message: "waitgate: an Event the operator writes is about a HeldJob or a Job (involvedObject or regarding)"
{{- end -}}

{{/* The spec of the heldjob-made-by ValidatingAdmissionPolicy. Include with (dict "receiver"
"<the receiver's user name, or empty when there is none>"). The label waitgate.dev/made-by:
receiver marks the HeldJobs the receiver made from a trigger; the operator holds such a one to
its trigger's template. The receiver's ServiceAccount writes no HeldJob without it, so it
cannot make a hold that escapes that check, and no one changes, adds or removes it after the
create. */}}
{{- define "waitgate.heldJobMadeBySpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [waitgate.dev]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [heldjobs]
variables:
  - name: madeBy
    expression: "has(object.metadata.labels) && 'waitgate.dev/made-by' in object.metadata.labels ? object.metadata.labels['waitgate.dev/made-by'] : ''"
  - name: wasMadeBy
    expression: "has(oldObject.metadata.labels) && 'waitgate.dev/made-by' in oldObject.metadata.labels ? oldObject.metadata.labels['waitgate.dev/made-by'] : ''"
validations:
  {{- with .receiver }}
  - expression: {{ printf "request.userInfo.username != '%s' || variables.madeBy == 'receiver'" . | quote }}
    reason: Forbidden
    message: "waitgate: a HeldJob the receiver writes carries the label waitgate.dev/made-by: receiver"
  {{- end }}
  - expression: "request.operation != 'UPDATE' || variables.madeBy == variables.wasMadeBy"
    reason: Invalid
    message: "waitgate: the label waitgate.dev/made-by is set when a HeldJob is created and never added, changed or removed"
    messageExpression: >-
      'waitgate: the label waitgate.dev/made-by is set when a HeldJob is created and never added, changed or removed ('
      + object.metadata.name + ' was made ' + (variables.wasMadeBy == '' ? 'without it' : 'with ' + variables.wasMadeBy) + ')'
{{- end -}}

{{/* The spec of the heldjob-status ValidatingAdmissionPolicy, on the status subresource.
Include with (dict "receiver" "<the receiver's user name, or empty>"). A hold's phase moves
forward only: a terminal phase (Succeeded, Failed, Refused) is final; a Running hold whose Job
is confirmed created (condition Launched True) ends Succeeded or Failed; one whose create is
not yet confirmed may also go back to Held or end Refused (the operator's own recovery of a
create that never landed). A Launched condition once True stays True. The receiver writes status
only to mark its own records Refused. With heldjob-spec-immutable keyed on phase and that
condition, a status write cannot open a launched hold's spec to edits. */}}
{{- define "waitgate.heldJobStatusSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [waitgate.dev]
      apiVersions: ["*"]
      operations: [UPDATE]
      resources: [heldjobs/status]
variables:
  - name: was
    expression: "has(oldObject.status) && has(oldObject.status.phase) ? oldObject.status.phase : ''"
  - name: now
    expression: "has(object.status) && has(object.status.phase) ? object.status.phase : ''"
  - name: confirmed
    expression: >-
      has(oldObject.status) && has(oldObject.status.conditions)
      && oldObject.status.conditions.exists(c, c.type == 'Launched' && c.status == 'True')
validations:
  - expression: "!(variables.was in ['Succeeded', 'Failed', 'Refused']) || variables.now == variables.was"
    reason: Invalid
    messageExpression: >-
      'waitgate: ' + object.metadata.name + ' ended ' + variables.was + ', and a HeldJob that has ended stays so (status.phase '
      + (variables.now == '' ? 'removed' : variables.now) + ' refused)'
  - expression: >-
      variables.was != 'Running' || variables.now in ['Running', 'Succeeded', 'Failed']
      || (!variables.confirmed && variables.now in ['Held', 'Refused'])
    reason: Invalid
    messageExpression: >-
      'waitgate: ' + object.metadata.name + ' is Running' + (variables.confirmed ? ', its Job created,' : '')
      + ' and goes on to Succeeded or Failed only (status.phase ' + (variables.now == '' ? 'removed' : variables.now) + ' refused)'
  - expression: >-
      !variables.confirmed || (has(object.status) && has(object.status.conditions)
        && object.status.conditions.exists(c, c.type == 'Launched' && c.status == 'True'))
    reason: Invalid
    message: "waitgate: the condition Launched True records that a HeldJob's Job was created, and is never taken back"
  {{- with .receiver }}
  - expression: >-
      {{ printf "request.userInfo.username != '%s'" . }}
      || (has(object.metadata.labels) && 'waitgate.dev/made-by' in object.metadata.labels
        && object.metadata.labels['waitgate.dev/made-by'] == 'receiver' && variables.now == 'Refused')
    reason: Forbidden
    message: "waitgate: the receiver writes a status only to mark a record of its own (waitgate.dev/made-by: receiver) Refused"
  {{- end }}
{{- end -}}

{{/* The spec of the heldjob-approval ValidatingAdmissionPolicy. The annotations
waitgate.dev/approved-by, rejected-by and cancelled-by (api/vocabulary.ts) record who acted on
a hold: none is set at the create, each names the user who writes it and is never changed or
removed, and approved-by or rejected-by goes only on a hold with an approval condition, written
by a member of its group (request.userInfo.groups). Without this policy the names are not
held to anyone (waitgate doctor warns). */}}
{{- define "waitgate.heldJobApprovalSpec" -}}
failurePolicy: Fail
matchConstraints:
  resourceRules:
    - apiGroups: [waitgate.dev]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [heldjobs]
variables:
  - name: ann
    expression: "has(object.metadata.annotations) ? object.metadata.annotations : {}"
  - name: old
    expression: "oldObject != null && has(oldObject.metadata.annotations) ? oldObject.metadata.annotations : {}"
  - name: records
    expression: "['waitgate.dev/approved-by', 'waitgate.dev/rejected-by', 'waitgate.dev/cancelled-by']"
  - name: written
    expression: "variables.records + ['waitgate.dev/approval-reason', 'waitgate.dev/rejection-reason']"
  - name: added
    expression: "variables.records.filter(k, k in variables.ann && !(k in variables.old))"
  - name: says
    expression: "variables.added.exists(k, k != 'waitgate.dev/cancelled-by')"
  - name: group
    expression: >-
      has(object.spec) && has(object.spec.waitFor) && object.spec.waitFor.exists(c, has(c.approval))
      ? object.spec.waitFor.filter(c, has(c.approval))[0].approval : ''
validations:
  - expression: "request.operation != 'CREATE' || !variables.written.exists(k, k in variables.ann)"
    reason: Forbidden
    message: "waitgate: a HeldJob is created without waitgate.dev/approved-by, rejected-by, cancelled-by or their reasons: they record who acted on it later"
  - expression: "variables.written.all(k, !(k in variables.old) || (k in variables.ann && variables.ann[k] == variables.old[k]))"
    reason: Forbidden
    message: "waitgate: waitgate.dev/approved-by, rejected-by, cancelled-by and their reasons are set once, and never changed or removed"
  - expression: "variables.added.all(k, variables.ann[k] == request.userInfo.username)"
    reason: Forbidden
    message: "waitgate: waitgate.dev/approved-by, rejected-by and cancelled-by name the user who writes them"
    messageExpression: >-
      'waitgate: ' + variables.added.filter(k, variables.ann[k] != request.userInfo.username).join(', ')
      + ' must name the user who writes it, ' + request.userInfo.username
  - expression: "!variables.says || variables.group != ''"
    reason: Forbidden
    message: "waitgate: only a HeldJob with an approval condition in spec.waitFor is approved or rejected"
  - expression: "!variables.says || (has(request.userInfo.groups) && request.userInfo.groups.exists(g, g == variables.group))"
    reason: Forbidden
    message: "waitgate: only a member of the approval condition's group approves or rejects a HeldJob"
    messageExpression: >-
      'waitgate: ' + request.userInfo.username + ' is not a member of ' + variables.group
      + ', the group whose member approves or rejects ' + object.metadata.name
  - expression: "!('waitgate.dev/approved-by' in variables.ann && 'waitgate.dev/rejected-by' in variables.ann)"
    reason: Forbidden
    message: "waitgate: a HeldJob is approved or rejected, not both"
{{- end -}}

{{/* The spec of the check-pod-secrets ValidatingAdmissionPolicy. Include with
(dict "operator" "<the operator's user name>"). Its params are the Secrets of the release
namespace NOT labelled waitgate.dev/check-secret: "true" (the binding selects them), and the
policy is evaluated once for each, all of them to admit: a check Pod (the operator's, or one
labelled waitgate.dev/check, as `waitgate check --pod` makes) references none of them, by a
secret or projected volume, an env secretKeyRef or an envFrom secretRef. With no such Secret
there is no param and the Pod is admitted (parameterNotFoundAction: Allow). */}}
{{- define "waitgate.checkPodSecretsSpec" -}}
failurePolicy: Fail
paramKind:
  apiVersion: v1
  kind: Secret
matchConstraints:
  resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
matchConditions:
  - name: a-check-pod
    expression: >-
      request.userInfo.username == {{ .operator | squote }}
      || (has(object.metadata.labels) && 'waitgate.dev/check' in object.metadata.labels)
variables:
  - name: containers
    expression: "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
  - name: secret
    expression: "params == null ? '' : params.metadata.name"
validations:
  - expression: >-
      variables.secret == ''
      || (!(has(object.spec.volumes) && object.spec.volumes.exists(v,
            (has(v.secret) && has(v.secret.secretName) && v.secret.secretName == variables.secret)
            || (has(v.projected) && has(v.projected.sources) && v.projected.sources.exists(p,
              has(p.secret) && has(p.secret.name) && p.secret.name == variables.secret))))
        && !variables.containers.exists(c,
            (has(c.env) && c.env.exists(e, has(e.valueFrom) && has(e.valueFrom.secretKeyRef)
              && has(e.valueFrom.secretKeyRef.name) && e.valueFrom.secretKeyRef.name == variables.secret))
            || (has(c.envFrom) && c.envFrom.exists(f, has(f.secretRef) && has(f.secretRef.name) && f.secretRef.name == variables.secret))))
    messageExpression: "'waitgate: a check Pod references Secret ' + variables.secret + ' which is not labelled waitgate.dev/check-secret=true'"
    reason: Forbidden
{{- end -}}
