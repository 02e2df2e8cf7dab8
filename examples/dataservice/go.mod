module github.com/fnapi/fnapi/examples/dataservice

go 1.26.0

require github.com/fnapi/fnapi v0.0.0

replace github.com/fnapi/fnapi => ../..
