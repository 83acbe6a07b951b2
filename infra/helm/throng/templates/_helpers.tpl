{{/* Names: <release>-throng-<component>, shortened to Kubernetes' 63 characters. */}}
{{- define "throng.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "throng.name" -}}
{{- printf "%s-%s" (include "throng.fullname" .root) .component -}}
{{- end -}}

{{- define "throng.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "throng.labels" -}}
{{ include "throng.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "throng.image" -}}
{{- $image := index .root.Values.image .which -}}
{{- printf "%s:%s" $image.repository (default .root.Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/* The Secret holding AUTH_SECRET, DATABASE_URL, REDIS_URL and the optional metrics keys. */}}
{{- define "throng.secretName" -}}
{{- default (include "throng.name" (dict "root" . "component" "app")) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "throng.enrolmentSecretName" -}}
{{- default (include "throng.name" (dict "root" . "component" "agent-enrolment")) .Values.agents.enrolment.existingSecret -}}
{{- end -}}

{{- define "throng.scheme" -}}
{{- if and .Values.ingress.enabled .Values.ingress.tls.enabled }}https{{ else }}http{{ end -}}
{{- end -}}

{{/* WEB_ORIGIN and API_PUBLIC_URL: publicUrl, else the ingress host, else the web Service. */}}
{{- define "throng.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl | trimSuffix "/" -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "%s://%s" (include "throng.scheme" .) .Values.ingress.host -}}
{{- else -}}
{{- printf "http://%s:%v" (include "throng.name" (dict "root" . "component" "web")) .Values.web.port -}}
{{- end -}}
{{- end -}}

{{- define "throng.apiUrl" -}}
{{- printf "http://%s:%v" (include "throng.name" (dict "root" . "component" "api")) .Values.api.port -}}
{{- end -}}

{{/* Variables api and workers both read (apps/api/src/env.ts, workers/src/env.ts). */}}
{{- define "throng.sharedEnv" -}}
{{- $secret := include "throng.secretName" . -}}
- name: AUTH_SECRET
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: AUTH_SECRET } }
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: DATABASE_URL } }
- name: REDIS_URL
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: REDIS_URL } }
- name: METRICS_TOKEN
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: METRICS_TOKEN, optional: true } }
- name: METRICS_EXPORT_KEY
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: METRICS_EXPORT_KEY, optional: true } }
- name: WEB_ORIGIN
  value: {{ include "throng.publicUrl" . | quote }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{- define "throng.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* nodeSelector, tolerations and affinity of one component's values. */}}
{{- define "throng.placement" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
