package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// endOffset returns the end offset (the high watermark) of partition 0 of
// topic; 0 when the topic does not exist yet.
func endOffset(ctx context.Context, cl *kgo.Client, topic string) (int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = topic
	pr := kmsg.NewListOffsetsRequestTopicPartition()
	pr.Partition = 0
	pr.Timestamp = -1 // the latest offset
	t.Partitions = append(t.Partitions, pr)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, fmt.Errorf("end offset of %s: no answer", topic)
	}
	rp := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
		if err == kerr.UnknownTopicOrPartition {
			return 0, nil
		}
		return 0, fmt.Errorf("end offset of %s: %w", topic, err)
	}
	return rp.Offset, nil
}
