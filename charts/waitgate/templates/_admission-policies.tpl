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
launched or ended, its spec changes no more. The apiserver moves metadata.generation on any
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
validations:
  - expression: "!has(oldObject.status) || !has(oldObject.status.phase) || oldObject.status.phase in ['Pending', 'Held']"
    reason: Invalid
    message: "waitgate: the spec of a HeldJob is immutable once it has launched or ended"
    messageExpression: >-
      'waitgate: ' + (size(variables.changed) == 0 ? 'spec' : variables.changed.map(k, 'spec.' + k).join(', '))
      + ': the spec of a HeldJob is immutable once it has launched or ended (' + object.metadata.name + ' is '
      + oldObject.status.phase + '); its Job runs as launched, so create a new HeldJob to run another'
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
  - expression: "!has(object.spec.volumes) || object.spec.volumes.all(v, has(v.configMap) || has(v.emptyDir) || has(v.downwardAPI))"
    reason: Forbidden
    message: "waitgate: a Pod the operator creates mounts only configMap, emptyDir and downwardAPI volumes (no Secret, token, hostPath or other volume)"
  - expression: >-
      variables.containers.all(c, (!has(c.env) || c.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef)))
        && (!has(c.envFrom) || c.envFrom.all(f, !has(f.secretRef))))
    reason: Forbidden
    message: "waitgate: a Pod the operator creates reads no Secret into its environment"
{{- end -}}

{{/* The spec of the operator-jobs ValidatingAdmissionPolicy, bound in the release namespace
only. Include with (dict "operator" "<the operator's user name>" "serviceAccounts" (list of
the chart's ServiceAccount names) "secrets" (list of Secret names a Job there may use)).
The operator creates Jobs wherever it serves HeldJobs, and the release namespace is one of
them; this is what keeps a Job there, whoever asked for it through the operator's rights (a
stolen token, an exec-mode check script), from reading the release's own Secrets (webhook
secrets, the Valkey password, forge credentials) or running as one of its ServiceAccounts. A
refusal is "Invalid" (422): the operator ends the hold JobRejected with this message rather
than trying again. */}}
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
  - name: allowedSecrets
    expression: {{ .secrets | default list | toJson | quote }}
  - name: chartAccounts
    expression: {{ .serviceAccounts | toJson | quote }}
validations:
  - expression: >-
      !has(variables.pod.volumes) || variables.pod.volumes.all(v,
        (!has(v.secret) || (has(v.secret.secretName) && v.secret.secretName in variables.allowedSecrets))
        && (!has(v.projected) || !has(v.projected.sources) || v.projected.sources.all(s,
          !has(s.secret) || (has(s.secret.name) && s.secret.name in variables.allowedSecrets))))
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace mounts no Secret but those admissionPolicy.releaseNamespaceJobSecrets names"
  - expression: >-
      variables.containers.all(c,
        (!has(c.env) || c.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef)
          || (has(e.valueFrom.secretKeyRef.name) && e.valueFrom.secretKeyRef.name in variables.allowedSecrets)))
        && (!has(c.envFrom) || c.envFrom.all(f, !has(f.secretRef)
          || (has(f.secretRef.name) && f.secretRef.name in variables.allowedSecrets))))
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace reads no Secret into its environment but those admissionPolicy.releaseNamespaceJobSecrets names"
  - expression: >-
      !(has(variables.pod.serviceAccountName) && variables.pod.serviceAccountName in variables.chartAccounts)
      && !(has(variables.pod.serviceAccount) && variables.pod.serviceAccount in variables.chartAccounts)
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace does not run as one of waitgate's own ServiceAccounts"
  - expression: >-
      !(has(variables.pod.hostNetwork) && variables.pod.hostNetwork) && !(has(variables.pod.hostPID) && variables.pod.hostPID)
      && !(has(variables.pod.hostIPC) && variables.pod.hostIPC)
      && (!has(variables.pod.volumes) || variables.pod.volumes.all(v, !has(v.hostPath)))
      && variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)
    reason: Invalid
    message: "waitgate: a Job the operator creates in the release namespace shares no host namespace, mounts no hostPath and is not privileged"
{{- end -}}
