{{/* Names ---------------------------------------------------------------------------------- */}}

{{- define "waitgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's base name, at most 40 characters so "<base>-receiver-metrics" stays a DNS label. */}}
{{- define "waitgate.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Cluster-scoped objects (and Roles outside the release namespace) carry the release
namespace too, so two releases of the same name in different namespaces never collide. */}}
{{- define "waitgate.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "waitgate.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "waitgate.operatorName" -}}
{{- printf "%s-operator" (include "waitgate.fullname" .) -}}
{{- end -}}

{{- define "waitgate.receiverName" -}}
{{- printf "%s-receiver" (include "waitgate.fullname" .) -}}
{{- end -}}

{{/* The ServiceAccount each component runs as: <component>.serviceAccount.name, else (create
true) the component's own name. RBAC bindings, the admission policies and doctor name it so.
include with (dict "ctx" $ "component" "operator"). */}}
{{- define "waitgate.serviceAccountName" -}}
{{- $sa := index .ctx.Values .component "serviceAccount" -}}
{{- if $sa.name -}}
{{- $sa.name -}}
{{- else if $sa.create -}}
{{- printf "%s-%s" (include "waitgate.fullname" .ctx) .component -}}
{{- else -}}
{{- fail (printf "%s.serviceAccount.create is false and %s.serviceAccount.name is empty: name the existing ServiceAccount the %s runs as (the chart binds its rules to it)." .component .component .component) -}}
{{- end -}}
{{- end -}}

{{- define "waitgate.operatorServiceAccount" -}}
{{- include "waitgate.serviceAccountName" (dict "ctx" . "component" "operator") -}}
{{- end -}}

{{- define "waitgate.receiverServiceAccount" -}}
{{- include "waitgate.serviceAccountName" (dict "ctx" . "component" "receiver") -}}
{{- end -}}

{{/* The two ConfigMaps follow the release: <fullname>-profiles and <fullname>-triggers, so the
default release (fullname "waitgate") keeps waitgate-profiles and waitgate-triggers, and several
releases fit in one namespace. profilesConfigMap.name / triggersConfigMap.name override. */}}
{{- define "waitgate.profilesConfigMap" -}}
{{- default (printf "%s-profiles" (include "waitgate.fullname" .)) .Values.profilesConfigMap.name -}}
{{- end -}}

{{- define "waitgate.triggersConfigMap" -}}
{{- default (printf "%s-triggers" (include "waitgate.fullname" .)) .Values.triggersConfigMap.name -}}
{{- end -}}

{{/* The operator's leader-election Lease: operator.leaderElection.id, else the operator's name. */}}
{{- define "waitgate.leaseName" -}}
{{- default (include "waitgate.operatorName" .) .Values.operator.leaderElection.id -}}
{{- end -}}

{{- define "waitgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels ---------------------------------------------------------------------------------- */}}

{{- define "waitgate.labels" -}}
helm.sh/chart: {{ include "waitgate.chart" . }}
app.kubernetes.io/name: {{ include "waitgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: waitgate
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: include with (dict "ctx" $ "component" "operator"). */}}
{{- define "waitgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "waitgate.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "waitgate.componentLabels" -}}
{{ include "waitgate.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Image ----------------------------------------------------------------------------------- */}}

{{- define "waitgate.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag -}}
{{- end -}}

{{/* repository@digest when image.digest is set (the tag is then ignored), else repository:tag. */}}
{{/* The receiver's image: receiver.imageDigest, else receiver.imageTag, else the chart's image. */}}
{{- define "waitgate.receiverImage" -}}
{{- if .Values.receiver.imageDigest -}}
{{- printf "%s@%s" .Values.image.repository .Values.receiver.imageDigest -}}
{{- else if .Values.receiver.imageTag -}}
{{- printf "%s:%s" .Values.image.repository .Values.receiver.imageTag -}}
{{- else -}}
{{- include "waitgate.image" . -}}
{{- end -}}
{{- end -}}

{{/* Pull secrets of the chart's own Pods: imagePullSecrets, then global.imagePullSecrets (a
parent chart's), each entry {name: ...} or a bare name, without repeats. Empty: nothing. */}}
{{- define "waitgate.imagePullSecrets" -}}
{{- $names := list -}}
{{- $global := dict -}}
{{- if .Values.global }}{{ $global = .Values.global }}{{ end -}}
{{- range (concat (.Values.imagePullSecrets | default list) ($global.imagePullSecrets | default list)) -}}
{{- $n := ternary . (get (kindIs "map" . | ternary . dict) "name") (kindIs "string" .) -}}
{{- if and $n (not (has $n $names)) }}{{ $names = append $names $n }}{{ end -}}
{{- end -}}
{{- if $names }}
imagePullSecrets:
{{- range $names }}
  - name: {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A Pod's priorityClassName: the component's own, else global.priorityClassName. */}}
{{- define "waitgate.priorityClassName" -}}
{{- $global := dict -}}
{{- if .ctx.Values.global }}{{ $global = .ctx.Values.global }}{{ end -}}
{{- with (.own | default $global.priorityClassName) }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- end -}}

{{- define "waitgate.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (include "waitgate.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{/* Settings derived from several values ---------------------------------------------------- */}}

{{- define "waitgate.jobNamespace" -}}
{{- default .Release.Namespace .Values.receiver.jobNamespace -}}
{{- end -}}

{{/* "true" or "false": explicit when set, else on with more than one replica. */}}
{{- define "waitgate.leaderElection" -}}
{{- $le := .Values.operator.leaderElection.enabled -}}
{{- if kindIs "bool" $le -}}
{{- $le -}}
{{- else -}}
{{- gt (int .Values.operator.replicas) 1 -}}
{{- end -}}
{{- end -}}

{{- define "waitgate.valkeySecretName" -}}
{{- if .Values.valkey.existingSecret -}}
{{- .Values.valkey.existingSecret -}}
{{- else -}}
{{- printf "%s-valkey" (include "waitgate.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The trial Valkey (valkey.deploy): its Deployment, Service and NetworkPolicy share this name,
and so does the chart's Valkey Secret, which then holds its password beside the URL. */}}
{{- define "waitgate.trialValkeyName" -}}
{{- printf "%s-valkey" (include "waitgate.fullname" .) -}}
{{- end -}}

{{- define "waitgate.trialValkeyPort" -}}6379{{- end -}}

{{/* The trial Valkey's password: the one in the release's Secret when it already holds one (an
upgrade keeps it, so the running Valkey and the pods agree), else a new random one. Called once
per render, by secrets.yaml; `helm template` (no cluster to look in) always makes a new one. */}}
{{- define "waitgate.trialValkeyPassword" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "waitgate.valkeySecretName" .) -}}
{{- $kept := "" -}}
{{- if $existing -}}
{{- $kept = index (default dict $existing.data) "password" | default "" | b64dec -}}
{{- end -}}
{{- $kept | default (randAlphaNum 32) -}}
{{- end -}}

{{- define "waitgate.valkeySecretKey" -}}
{{- if .Values.valkey.existingSecret -}}
{{- .Values.valkey.existingSecretKey -}}
{{- else -}}
url
{{- end -}}
{{- end -}}

{{/* Valkey's CA certificate, mounted where WAITGATE_VALKEY_CA_FILE points (valkey.tls). */}}
{{- define "waitgate.valkeyCaDir" -}}/etc/waitgate/valkey-ca{{- end -}}

{{- define "waitgate.valkeyCaEnv" -}}
{{- if or .Values.valkey.tls.caSecret .Values.valkey.tls.caConfigMap }}
- name: WAITGATE_VALKEY_CA_FILE
  value: {{ printf "%s/ca.crt" (include "waitgate.valkeyCaDir" .) | toJson }}
{{- end }}
{{- end -}}

{{- define "waitgate.valkeyCaMount" -}}
{{- if or .Values.valkey.tls.caSecret .Values.valkey.tls.caConfigMap }}
- name: valkey-ca
  mountPath: {{ include "waitgate.valkeyCaDir" . }}
  readOnly: true
{{- end }}
{{- end -}}

{{- define "waitgate.valkeyCaVolume" -}}
{{- $t := .Values.valkey.tls -}}
{{- if $t.caSecret }}
- name: valkey-ca
  secret:
    secretName: {{ $t.caSecret }}
    defaultMode: 292
    items:
      - { key: {{ $t.caKey | quote }}, path: ca.crt }
{{- else if $t.caConfigMap }}
- name: valkey-ca
  configMap:
    name: {{ $t.caConfigMap }}
    defaultMode: 292
    items:
      - { key: {{ $t.caKey | quote }}, path: ca.crt }
{{- end }}
{{- end -}}

{{- define "waitgate.receiverSecretName" -}}
{{- if .Values.receiver.existingSecret -}}
{{- .Values.receiver.existingSecret -}}
{{- else -}}
{{- printf "%s-receiver-webhooks" (include "waitgate.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The profiles ConfigMap's data: profiles.json plus one "<name>.sh" key per script. */}}
{{- define "waitgate.profilesData" -}}
{{- $profiles := dict -}}
{{- range $name, $p := .Values.profiles -}}
{{- $entry := dict "mode" (default "pod" $p.mode) "script" (printf "%s.sh" $name) -}}
{{- if $p.image }}{{ $_ := set $entry "image" $p.image }}{{ end -}}
{{- if $p.resources }}{{ $_ := set $entry "resources" $p.resources }}{{ end -}}
{{- if $p.annotations }}{{ $_ := set $entry "annotations" $p.annotations }}{{ end -}}
{{- if $p.secrets }}{{ $_ := set $entry "secrets" $p.secrets }}{{ end -}}
{{- if $p.env }}{{ $_ := set $entry "env" $p.env }}{{ end -}}
{{- /* A profile's own placement; kept when empty too (an empty nodeSelector clears the default). */ -}}
{{- range $k := list "nodeSelector" "tolerations" "priorityClassName" }}{{ if hasKey $p $k }}{{ $_ := set $entry $k (get $p $k) }}{{ end }}{{ end -}}
{{- $_ := set $profiles $name $entry -}}
{{- end -}}
profiles.json: {{ $profiles | toJson | toJson }}
{{- range $name, $p := .Values.profiles }}
{{ printf "%s.sh" $name }}: {{ $p.script | toJson }}
{{- end -}}
{{- end -}}

{{/* Cross-field rules a JSON schema cannot say; each fails the render with the reason. */}}
{{- define "waitgate.validate" -}}
{{- if and (gt (int .Values.operator.replicas) 1) (eq (include "waitgate.leaderElection" .) "false") -}}
{{- fail "operator.leaderElection.enabled is false with operator.replicas > 1: every replica would reconcile the same HeldJobs. Leave it null (or true), or set operator.replicas to 1." -}}
{{- end -}}
{{- if and .Values.receiver.enabled .Values.watchNamespace (ne (include "waitgate.jobNamespace" .) .Values.watchNamespace) -}}
{{- fail (printf "receiver.jobNamespace (%s) is outside watchNamespace (%s): no operator would see the HeldJobs the receiver creates." (include "waitgate.jobNamespace" .) .Values.watchNamespace) -}}
{{- end -}}
{{- if .Values.valkey.deploy -}}
{{- if or .Values.valkey.url .Values.valkey.existingSecret -}}
{{- fail "valkey.deploy is true and valkey.url or valkey.existingSecret is set too: pick one. deploy runs a trial Valkey of the chart's own; url and existingSecret point at a Valkey of yours." -}}
{{- end -}}
{{- if or .Values.valkey.tls.caSecret .Values.valkey.tls.caConfigMap -}}
{{- fail "valkey.tls is set with valkey.deploy: the trial Valkey speaks plain redis:// inside the cluster, so there is no certificate to check." -}}
{{- end -}}
{{- if .Values.networkPolicy.valkey.podLabels -}}
{{- fail "networkPolicy.valkey.podLabels is set with valkey.deploy: the chart fences its own trial Valkey by its own labels. Leave podLabels empty (it is for a Valkey of yours)." -}}
{{- end -}}
{{- else if not (or .Values.valkey.url .Values.valkey.existingSecret) -}}
{{- fail "valkey.url is required (or valkey.existingSecret naming a Secret that holds it): there is no default Valkey, and the operator and the receiver need one. Point at yours, e.g. --set valkey.url=redis://valkey.valkey.svc:6379, or try waitgate out with a trial Valkey of the chart's own: --set valkey.deploy=true" -}}
{{- end -}}
{{- if and .Values.receiver.ingress.enabled (not .Values.receiver.enabled) -}}
{{- fail "receiver.ingress.enabled is true but receiver.enabled is false: there is no receiver to route to." -}}
{{- end -}}
{{- if and .Values.receiver.httpRoute.enabled (not .Values.receiver.enabled) -}}
{{- fail "receiver.httpRoute.enabled is true but receiver.enabled is false: there is no receiver to route to." -}}
{{- end -}}
{{- if and .Values.receiver.enabled .Values.receiver.httpRoute.enabled (not .Values.receiver.httpRoute.parentRefs) -}}
{{- fail "receiver.httpRoute.parentRefs is empty: name the Gateway the route attaches to, e.g. [{name: public, namespace: gateways, sectionName: https}]." -}}
{{- end -}}
{{- if and .Values.valkey.tls.caSecret .Values.valkey.tls.caConfigMap -}}
{{- fail "valkey.tls: set caSecret or caConfigMap, not both." -}}
{{- end -}}
{{- if and (or .Values.valkey.tls.caSecret .Values.valkey.tls.caConfigMap) (not .Values.valkey.existingSecret) (not (hasPrefix "rediss://" .Values.valkey.url)) -}}
{{- fail "valkey.tls: a CA certificate is set, but valkey.url is not a rediss:// URL: the CA is only used for TLS." -}}
{{- end -}}
{{- range $i, $w := .Values.pauseWindows -}}
{{- if eq $w.start $w.end -}}
{{- fail (printf "pauseWindows[%d]: start and end are both %s; they must differ." $i $w.start) -}}
{{- end -}}
{{- end -}}
{{- $names := dict -}}
{{- range $i, $t := .Values.triggers -}}
{{- if hasKey $names $t.name -}}
{{- fail (printf "triggers[%d]: the name %q is used twice." $i $t.name) -}}
{{- end -}}
{{- $_ := set $names $t.name true -}}
{{- end -}}
{{- end -}}

{{/* Pod-level settings shared by both Deployments: include with (dict "ctx" $ "c" .Values.operator). */}}
{{- define "waitgate.podCommon" -}}
{{- include "waitgate.imagePullSecrets" .ctx }}
{{- with .ctx.Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- include "waitgate.priorityClassName" (dict "ctx" .ctx "own" .c.priorityClassName) }}
{{- with .c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
{{- if .c.affinity }}
  {{- toYaml .c.affinity | nindent 2 }}
{{- else }}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "waitgate.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 14 }}
{{- end }}
{{- with .c.topologySpreadConstraints }}
topologySpreadConstraints:
{{- range . }}
{{- $tsc := . }}
{{- if not (hasKey $tsc "labelSelector") }}
{{- $tsc = merge (dict "labelSelector" (dict "matchLabels" (include "waitgate.selectorLabels" (dict "ctx" $.ctx "component" $.component) | fromYaml))) $tsc }}
{{- end }}
  - {{ toYaml $tsc | indent 4 | trim }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Extra volumes of a pod: include with (dict "c" .Values.operator). */}}
{{- define "waitgate.extraVolumes" -}}
{{- with .c.extraVolumes }}
{{- toYaml . }}
{{- end }}
{{- end -}}

{{/* envFrom of a component's container: include with (dict "c" .Values.operator). */}}
{{- define "waitgate.envFrom" -}}
{{- with .c.envFrom }}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "waitgate.extraVolumeMounts" -}}
{{- with .c.extraVolumeMounts }}
{{- toYaml . }}
{{- end }}
{{- end -}}

{{/* WAITGATE_CHECK_POD_DEFAULTS: operator.checkPods as one JSON object, empty keys left out.
Its imagePullSecrets, when empty: the chart's own imagePullSecrets and global.imagePullSecrets
(a parent chart's; a plain name or {name}), each name once. */}}
{{- define "waitgate.checkPodDefaults" -}}
{{- $c := .Values.operator.checkPods | default dict -}}
{{- $out := dict -}}
{{- $secrets := list -}}
{{- $names := list -}}
{{- $from := $c.imagePullSecrets | default list -}}
{{- if not $from -}}
{{- $from = concat (.Values.imagePullSecrets | default list) (dig "imagePullSecrets" list (.Values.global | default dict)) -}}
{{- end -}}
{{- range $from -}}
{{- $name := ternary . (get (kindIs "map" . | ternary . dict) "name") (kindIs "string" .) -}}
{{- if and $name (not (has $name $names)) -}}
{{- $names = append $names $name -}}
{{- $secrets = append $secrets (dict "name" $name) -}}
{{- end -}}
{{- end -}}
{{- with $secrets }}{{ $_ := set $out "imagePullSecrets" . }}{{ end -}}
{{- with $c.nodeSelector }}{{ $_ := set $out "nodeSelector" . }}{{ end -}}
{{- with $c.tolerations }}{{ $_ := set $out "tolerations" . }}{{ end -}}
{{- with $c.affinity }}{{ $_ := set $out "affinity" . }}{{ end -}}
{{- with $c.priorityClassName }}{{ $_ := set $out "priorityClassName" . }}{{ end -}}
{{- if $out }}{{ toJson $out }}{{ end -}}
{{- end -}}
