package demo_test

import (
	"fmt"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
)

func ExampleGenerator() {
	start := time.Date(2025, 3, 12, 14, 0, 0, 0, time.UTC)
	g := demo.New(start, demo.Options{Seed: 42})
	recs := g.Until(start.Add(time.Minute))
	fmt.Println(len(recs) > 0, recs[0].Time >= start.Unix(), recs[0].Validate(start) == nil)
	// Output:
	// true true true
}
