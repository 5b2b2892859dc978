package report

// EChartsJS returns the vendored Apache ECharts 5.6.0 (assets/echarts.min.js,
// about 1 MB of JavaScript) that every page inlines, so that other renderers
// of the same results (the GoNB notebooks, through pkg/nb) draw offline with
// the same library. The text is the file unchanged; a caller that puts it in
// an HTML <script> element needs no escaping (it contains no "</script").
func EChartsJS() string { return echartsJS }
