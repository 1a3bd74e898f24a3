{{/* Chart name, truncated to the 63 characters a label value allows. */}}
{{- define "a2a-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: the release name, plus the chart name unless the release has it. */}}
{{- define "a2a-gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "a2a-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The mode, checked: "gateway" or "sidecar". */}}
{{- define "a2a-gateway.mode" -}}
{{- if not (has .Values.mode (list "gateway" "sidecar")) }}
{{- fail (printf "mode must be \"gateway\" or \"sidecar\", got %q" (toString .Values.mode)) }}
{{- end }}
{{- .Values.mode }}
{{- end }}

{{- define "a2a-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "a2a-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: {{ include "a2a-gateway.mode" . }}
{{- end }}

{{- define "a2a-gateway.labels" -}}
helm.sh/chart: {{ include "a2a-gateway.chart" . }}
{{ include "a2a-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "a2a-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "a2a-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "a2a-gateway.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The upstream agent's URL: upstream.url, or the agent on localhost in sidecar mode. */}}
{{- define "a2a-gateway.upstreamUrl" -}}
{{- if .Values.upstream.url }}
{{- .Values.upstream.url }}
{{- else if eq (include "a2a-gateway.mode" .) "sidecar" }}
{{- printf "http://127.0.0.1:%d" (int .Values.agent.port) }}
{{- else }}
{{- required "upstream.url is required in gateway mode (the agent's URL, e.g. http://my-agent:9999)" .Values.upstream.url }}
{{- end }}
{{- end }}

{{/* Longer than the preStop sleep plus the gateway's drain deadline, with headroom. */}}
{{- define "a2a-gateway.terminationGracePeriodSeconds" -}}
{{- if .Values.terminationGracePeriodSeconds }}
{{- .Values.terminationGracePeriodSeconds }}
{{- else }}
{{- add (int .Values.preStopSleepSeconds) (ceil .Values.shutdownGraceSeconds | int) 10 }}
{{- end }}
{{- end }}

{{- define "a2a-gateway.preStop" -}}
{{- if .Values.preStopSleepSeconds -}}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.preStopSleepSeconds | toString | quote }}]
{{- end }}
{{- end }}

{{/* The gateway container after its name, shared by both modes (a native sidecar in sidecar mode). */}}
{{- define "a2a-gateway.gatewayContainer" -}}
image: {{ include "a2a-gateway.image" . | quote }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
args: ["--config", "/etc/a2a-gateway/gateway.toml"]
env:
  - name: A2A_GATEWAY_SERVER_LISTEN
    value: {{ printf "0.0.0.0:%d" (int .Values.ports.http) | quote }}
  - name: A2A_GATEWAY_GRPC_LISTEN
    value: {{ printf "0.0.0.0:%d" (int .Values.ports.grpc) | quote }}
  - name: A2A_GATEWAY_ADMIN_LISTEN
    value: {{ printf "0.0.0.0:%d" (int .Values.ports.admin) | quote }}
  {{- with .Values.gateway.env }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .Values.gateway.envFrom }}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
ports:
  - name: http
    containerPort: {{ .Values.ports.http }}
    protocol: TCP
  - name: grpc
    containerPort: {{ .Values.ports.grpc }}
    protocol: TCP
  - name: admin
    containerPort: {{ .Values.ports.admin }}
    protocol: TCP
startupProbe:
  httpGet:
    path: /healthz
    port: admin
  periodSeconds: 1
  failureThreshold: 30
livenessProbe:
  httpGet:
    path: /healthz
    port: admin
  periodSeconds: 10
  timeoutSeconds: 2
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: admin
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 2
{{- with .Values.gateway.resources }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.gateway.securityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumeMounts:
  - name: gateway-config
    mountPath: /etc/a2a-gateway
    readOnly: true
  - name: gateway-tmp
    mountPath: /tmp
{{- end }}
